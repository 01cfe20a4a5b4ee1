"""`reconciler run --workers 2` on PostgreSQL: a leader and a follower process share the shards.

Given a repository of four stacks of native Heat types (no cloud state to share between
processes), when the daemon runs with two workers, then both register, both end up holding shards,
every stack's convergence note reaches git through the leader, a follower killed with SIGKILL is
started again, and SIGTERM stops both cleanly. A stack added then, a group of template resources,
converges although its nested stacks hash to shards of both workers.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import git
import pytest

from reconciler.source.note_lines import newest_per_stack
from reconciler.source.notes_store import NotesStore
from state import open_store
from tests.daemon.run_process import DaemonProcess
from tests.engine.test_scenario_native import GROUP, NODE
from tests.source.git_repos import commit_files, init_repository
from timekeeping import SystemClock

STACKS = ("alpha", "beta", "gamma", "delta")
TEMPLATE = """heat_template_version: 2018-08-31
resources:
  value:
    type: OS::Heat::Value
    properties: {value: hello}
  none:
    type: OS::Heat::None
    depends_on: value
"""
READY_SECONDS = 60.0
SHARE_SECONDS = 90.0  # leases last 15 s and are balanced every 5 s: a fair split takes a few rounds


MEMBERS = 9


def configuration(stacks: tuple[str, ...]) -> str:
    entries = [f"  {name}:\n    template: stacks/{name}.yaml\n" for name in stacks]
    if "tree" in stacks:
        entries[stacks.index("tree")] += f"    parameters: {{count: {MEMBERS}}}\n"
    return "defaults: {cloud: sim}\nstacks:\n" + "".join(entries)


def native_repository(path: Path) -> git.Repo:
    repo = init_repository(path)
    files = {f"stacks/{name}.yaml": TEMPLATE for name in STACKS}
    commit_files(repo, {"reconciler.yaml": configuration(STACKS), **files})
    return repo


def poll(condition: object, seconds: float) -> bool:
    assert callable(condition)
    give_up = threading.Event()
    timer = threading.Timer(seconds, give_up.set)
    timer.start()
    try:
        while not condition():
            if give_up.wait(0.25):
                return False
        return True
    finally:
        timer.cancel()


@pytest.mark.postgres
def test_two_worker_processes_share_the_shards_and_the_leader_notes_every_stack(
    tmp_path: Path, postgres_url: str
) -> None:
    repo = native_repository(tmp_path / "repo")
    commit = repo.head.commit.hexsha
    args = ["--repo", str(tmp_path / "repo"), "--state-dir", str(tmp_path / "state"), "--workers", "2"]
    daemon = DaemonProcess([*args, "--database", postgres_url, "--listen", "127.0.0.1:0"], tmp_path, "leader")
    store = open_store(postgres_url, clock=SystemClock())
    try:
        daemon.wait_for("READY=1", READY_SECONDS)

        def all_noted() -> bool:
            lines = newest_per_stack(NotesStore(repo).read(commit))
            return {line.stack for line in lines if line.status == "CONVERGED"} == set(STACKS)

        def shards_split() -> bool:
            owners = {view.owner for view in store.lease_table() if not view.expired and view.owner}
            return len(owners) == 2

        assert poll(all_noted, READY_SECONDS), daemon.output()
        assert poll(lambda: len(store.live_workers()) == 2, READY_SECONDS), daemon.output()
        assert poll(shards_split, SHARE_SECONDS), daemon.output()

        tree = commit_files(
            repo,
            {
                "reconciler.yaml": configuration((*STACKS, "tree")),
                "stacks/tree.yaml": GROUP,  # a group of template resources: a tree of stacks
                "stacks/node.yaml": NODE,
            },
        )

        def tree_noted() -> bool:
            lines = newest_per_stack(NotesStore(repo).read(tree))
            return any(line.stack == "tree" and line.status == "CONVERGED" for line in lines)

        assert poll(tree_noted, READY_SECONDS), daemon.output()
        assert store.read_outputs("tree") == {"labels": [f"node-{index}" for index in range(MEMBERS)]}

        def follower_pid() -> int | None:
            return next((worker.pid for worker in store.live_workers() if worker.id == "follower-1"), None)

        crashed = follower_pid()
        assert crashed is not None
        os.kill(crashed, signal.SIGKILL)  # the leader starts it again
        assert poll(lambda: follower_pid() not in (None, crashed), READY_SECONDS), daemon.output()
        assert daemon.terminate() == 0, daemon.output()
    finally:
        daemon.close()
    assert poll(lambda: not store.live_workers(), 30)  # both left cleanly
    store.close()
