"""Processes started by a process that also writes scripts and executes them, without ETXTBSY.

A child forked by one thread holds a copy of every descriptor the process has open until it execs.
Were a script file open for writing in another thread at that moment, executing the script fails
with ETXTBSY ("Text file busy") for as long as that child has not exec'd, which on a loaded host
can outlast the writer's close by far. So, in such a process, every script is written and every
process is started under one lock: no fork ever copies a script's writing descriptor.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

_STARTING = threading.Lock()
Started = TypeVar("Started")


def started_apart(start: Callable[[], Started]) -> Started:
    """`start()` (a process's start), while no script file is open for writing here."""
    with _STARTING:
        return start()


def write_script(path: Path, text: str) -> None:
    """Write an executable script, with no process started meanwhile."""
    with _STARTING:
        path.write_text(text, encoding="utf-8")
        path.chmod(0o700)


def run_apart(
    command: Sequence[str], *, input: bytes | None = None, timeout: float
) -> subprocess.CompletedProcess[bytes]:
    """`subprocess.run(command, input=input, capture_output=True, timeout=timeout)`, started apart.

    Past `timeout` the process is killed and reaped, and `subprocess.TimeoutExpired` raised.
    """
    process = started_apart(
        lambda: subprocess.Popen(
            command,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    )
    with process:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
    return subprocess.CompletedProcess(list(command), process.returncode, stdout, stderr)
