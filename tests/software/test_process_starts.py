"""Processes started beside the agents' scripts: none makes a script "Text file busy"."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest

from reconciler.agent.hooks import script_hook
from reconciler.agent.process_starts import run_apart, started_apart


def _lingering_start() -> subprocess.Popen[bytes]:
    # the child keeps a copy of every descriptor open in this process until it execs
    return subprocess.Popen(["true"], preexec_fn=lambda: time.sleep(0.02))  # noqa: PLW1509


def test_scripts_run_while_other_threads_start_slow_children(tmp_path: Path) -> None:
    stop = threading.Event()

    def start_children() -> None:
        while not stop.is_set():
            started_apart(_lingering_start).wait()

    starters = [threading.Thread(target=start_children) for _ in range(2)]
    for starter in starters:
        starter.start()
    try:
        results = [
            script_hook({"config": f"#!/bin/sh\necho {index}\n"}, tmp_path / str(index), 30)
            for index in range(20)
        ]
    finally:
        stop.set()
        for starter in starters:
            starter.join()
    assert [result["deploy_stderr"] for result in results] == [""] * 20
    assert [result["deploy_stdout"] for result in results] == [f"{index}\n" for index in range(20)]


def test_a_command_run_apart_answers_as_subprocess_run() -> None:
    done = run_apart(["sh", "-c", "cat; echo err >&2; exit 3"], input=b"spec", timeout=10)
    assert (done.returncode, done.stdout, done.stderr) == (3, b"spec", b"err\n")


def test_a_command_run_apart_past_its_time_is_killed() -> None:
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_apart(["sleep", "30"], timeout=0.2)
    assert time.monotonic() - started < 10
