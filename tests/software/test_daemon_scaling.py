"""End to end: `reconciler run --agent-listen`, an alarm's POST to a ScalingPolicy's `alarm_url`,
the group grows, and the note on HEAD says so.

Given a repository whose stack has an AutoScalingGroup of two servers and a policy, when the daemon
runs with its agent API and an Aodh-style body is POSTed to the policy's URL (read from the
stack's outputs), then the group's `current_size` output becomes 3 without a commit and the
newest note line of the stack on HEAD names the scaling.
"""

from __future__ import annotations

import urllib.request
from pathlib import Path

import git

from reconciler.source.note_lines import newest_per_stack
from reconciler.source.notes_store import NotesStore
from state import open_store
from tests.daemon.run_process import DaemonProcess
from tests.daemon.test_run_process import READY_SECONDS
from tests.software.test_daemon_agent_api import SETTLE_SECONDS, free_port, until
from tests.software.test_scaling_scenarios import GROUP, post
from tests.source.git_repos import commit_files, init_repository
from timekeeping import SystemClock

CONFIG = """
branch: main
defaults: {cloud: sim}
stacks:
  web: {template: stacks/web.yaml}
"""
SCALED = "scaled web_group 2 -> 3 by scale_up"


def newest_line(repo_path: Path, commit: str) -> tuple[str, tuple[str, ...]] | None:
    lines = newest_per_stack(NotesStore(git.Repo(repo_path)).read(commit))
    found = [line for line in lines if line.kind == "convergence" and line.stack == "web"]
    return (found[0].status, found[0].failures) if found else None


def test_an_alarm_grows_the_group_and_the_note_on_head_says_so(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    commit = commit_files(repo, {"reconciler.yaml": CONFIG, "stacks/web.yaml": GROUP})
    port = free_port()
    state_dir = tmp_path / "state"
    args = ["--repo", str(tmp_path / "repo"), "--state-dir", str(state_dir), "--listen", "127.0.0.1:0"]
    daemon = DaemonProcess([*args, "--agent-listen", f"127.0.0.1:{port}"], tmp_path, "daemon")
    try:
        daemon.wait_for("READY=1", READY_SECONDS)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
            assert answer.status == 200
        store = open_store(
            f"sqlite:///{state_dir / 'state.sqlite'}", clock=SystemClock(), upgrade_schema=False
        )
        until(lambda: newest_line(tmp_path / "repo", commit) == ("CONVERGED", ()), SETTLE_SECONDS, daemon)
        outputs = store.read_outputs("web")
        assert outputs["size"] == 2 and f"http://127.0.0.1:{port}/v1/signal/" in outputs["up"]

        assert post(outputs["up"]) == 200

        until(lambda: store.read_outputs("web").get("size") == 3, SETTLE_SECONDS, daemon)
        scaled = ("CONVERGED", (SCALED,))
        until(lambda: newest_line(tmp_path / "repo", commit) == scaled, SETTLE_SECONDS, daemon)
        assert len(store.read_outputs("web")["refs"]) == 3
        store.close()
        assert daemon.terminate() == 0, daemon.output()
    finally:
        daemon.close()
