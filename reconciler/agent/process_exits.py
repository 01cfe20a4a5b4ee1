"""Waiting for a process to end, within a time limit, without waking meanwhile.

`Popen.wait(timeout)` polls: it sleeps up to 50 ms between looks, so a script of a few seconds
wakes its waiting thread dozens of times, each wake a turn at the interpreter's lock. A fleet of
agents waits for thousands of scripts at once. A process's pidfd (Linux 5.3 and later) becomes
readable when it ends: one `poll` on it waits the whole time limit, and `Popen.wait` then only
reaps it. Where there is no pidfd, `Popen.wait(timeout)` it is.
"""

from __future__ import annotations

import os
import select
import subprocess
from typing import Any


def exit_status(process: subprocess.Popen[Any], timeout: float) -> int:
    """`process.wait(timeout)`: its status, or TimeoutExpired once `timeout` s passed."""
    try:
        descriptor = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # no pidfd here, or the process is gone and reaped already
        return process.wait(timeout)
    try:
        readable = select.poll()
        readable.register(descriptor, select.POLLIN)
        if not readable.poll(max(0, int(timeout * 1000))):
            raise subprocess.TimeoutExpired(process.args, timeout)
    finally:
        os.close(descriptor)
    return process.wait()
