"""The real `reconciler run --agent-listen`: a WaitCondition completed by curl against the daemon.

Given a repository whose stack waits on a WaitConditionHandle, when the daemon runs with its agent
API on a port of its own and curl runs the handle's `curl_cli`, then the stack's note says
CONVERGED and its wait condition's data is what curl sent.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import urllib.request
from pathlib import Path

import pytest

from state import open_store
from tests.daemon.run_process import DaemonProcess
from tests.daemon.test_run_process import READY_SECONDS, converged_note
from tests.software.test_real_agents import WAIT
from tests.source.git_repos import commit_files, init_repository
from timekeeping import SystemClock

CONFIG = """
branch: main
defaults: {cloud: sim}
stacks:
  waiting: {template: stacks/waiting.yaml}
"""
SETTLE_SECONDS = 120.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def until(condition: object, seconds: float, daemon: DaemonProcess) -> None:
    give_up = threading.Event()
    timer = threading.Timer(seconds, give_up.set)
    timer.start()
    try:
        while not condition():  # type: ignore[operator]
            assert not give_up.wait(0.2), daemon.output()
    finally:
        timer.cancel()


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_completes_a_wait_condition_through_the_daemons_agent_api(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    commit = commit_files(repo, {"reconciler.yaml": CONFIG, "stacks/waiting.yaml": WAIT})
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

        def curl_cli() -> str | None:
            handle = {record.logical_name: record for record in store.read_records("waiting")}.get("handle")
            return None if handle is None else handle.attributes.get("curl_cli")

        until(lambda: curl_cli() is not None, SETTLE_SECONDS, daemon)
        assert f"http://127.0.0.1:{port}/v1/signal" in str(curl_cli())
        for number in ("1", "2"):
            body = json.dumps({"status": "SUCCESS", "data": f"node {number}", "id": number})
            subprocess.run(
                f"{curl_cli()} --silent --fail --data-binary '{body}'", shell=True, check=True, timeout=30
            )
        until(
            lambda: converged_note(tmp_path / "repo", commit) == {"waiting": "CONVERGED"},
            SETTLE_SECONDS,
            daemon,
        )
        assert json.loads(store.read_outputs("waiting")["data"]) == {"1": "node 1", "2": "node 2"}
        store.close()
        assert daemon.terminate() == 0, daemon.output()
    finally:
        daemon.close()
