"""The real `reconciler run --agent-listen` on the simulated cloud: its agents run a server's
scripts, and a restarted daemon's agents remember them.

Given a repository whose stack deploys a script to a server booted with SOFTWARE_CONFIG user
data, when the daemon runs with its agent API on, then the stack converges with the script's
output (the simulated cloud's agent ran it), and after a restart (SIGTERM, then `reconciler run`
again) the server's agent starts again remembering its runs and runs no script a second time
(the agents log every run they execute).
"""

from __future__ import annotations

import threading
from pathlib import Path

from state import open_store
from tests.daemon.run_process import DaemonProcess
from tests.daemon.test_run_process import READY_SECONDS, converged_note
from tests.software.test_daemon_agent_api import SETTLE_SECONDS, free_port, until
from tests.software.test_sim_agents import SCRIPTED
from tests.source.git_repos import commit_files, init_repository
from timekeeping import SystemClock

CONFIG = """
branch: main
defaults: {cloud: sim}
stacks:
  scripted: {template: stacks/scripted.yaml}
"""
RAN = "simulated agent of server"


def test_a_servers_scripts_run_once_across_a_daemon_restart(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    commit = commit_files(repo, {"reconciler.yaml": CONFIG, "stacks/scripted.yaml": SCRIPTED})
    state_dir = tmp_path / "state"
    args = [
        *("--repo", str(tmp_path / "repo"), "--state-dir", str(state_dir), "--listen", "127.0.0.1:0"),
        *("--agent-listen", f"127.0.0.1:{free_port()}"),
    ]
    first = DaemonProcess(args, tmp_path, "first")
    try:
        first.wait_for("READY=1", READY_SECONDS)
        until(
            lambda: converged_note(tmp_path / "repo", commit) == {"scripted": "CONVERGED"},
            SETTLE_SECONDS,
            first,
        )
        assert first.terminate() == 0, first.output()
    finally:
        first.close()
    assert f"{RAN} " in first.output() and " ran 1 script(s)" in first.output()
    store = open_store(f"sqlite:///{state_dir / 'state.sqlite'}", clock=SystemClock(), upgrade_schema=False)
    outputs = store.read_outputs("scripted")
    store.close()
    assert outputs["greeting"] == f"hello from {outputs['server']}\n"

    second = DaemonProcess(args, tmp_path, "second")
    try:
        second.wait_for("READY=1", READY_SECONDS)
        until(lambda: "(3 run(s) remembered)" in second.output(), SETTLE_SECONDS, second)
        threading.Event().wait(6.0)  # past a poll interval of the restarted agent
        assert second.terminate() == 0, second.output()
    finally:
        second.close()
    assert " ran " not in second.output().split("(3 run(s) remembered)", 1)[1]
