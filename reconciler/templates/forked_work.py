"""Pure work done in a forked child on the second core, its result read back through a pipe.

Loading a template is pure computation on data this process already holds, so a child made by
fork sees everything without copying or serializing it first; only its result travels back, as
bytes. The child runs nothing but the work it was given: the cyclic garbage collector is off
(the child lives for one task, and a collection would copy the parent's pages), the parent's
signal handlers are reset, and it leaves with os._exit (no atexit handlers, no flushing of the
parent's buffers, no finalizers talking to the parent's connections). Whatever goes wrong in the
child, the parent gets no result and does the work itself; when the parent gives up first, the
child is killed. Both ways the child is reaped.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import time
from collections.abc import Callable
from typing import NoReturn

_DONE = b"\x01"  # what a result starts with: a child that died mid-write sends less
PATIENCE = 120.0  # seconds the parent waits for a child's result once its own share is done


class ForkedWork:
    """Work running in a forked child; `result()` waits for its bytes, `close()` ends it."""

    def __init__(self, child: int, reading: int) -> None:
        self._child = child
        self._pipe = open(reading, "rb")  # noqa: SIM115 - closed by close(), after the read
        self._finished = False

    @classmethod
    def start(cls, work: Callable[[], bytes | None]) -> ForkedWork | None:
        """`work()` started in a child (None: no result); None when this platform cannot fork."""
        if not hasattr(os, "fork"):
            return None
        reading, writing = os.pipe()
        try:
            child = os.fork()
        except OSError:
            os.close(reading)
            os.close(writing)
            return None
        if child == 0:
            _run_child(work, reading, writing)
        os.close(writing)
        return cls(child, reading)

    def result(self, patience: float = PATIENCE) -> bytes | None:
        """The child's bytes, once it has sent them all; None if it had none, failed, or did not
        finish within `patience` seconds (then it is killed and the caller does the work itself:
        a child stuck on something the fork copied, a lock held by another thread, never blocks
        the parent for longer)."""
        chunks: list[bytes] = []
        give_up = time.monotonic() + patience
        descriptor = self._pipe.fileno()
        while True:
            remaining = give_up - time.monotonic()
            if remaining <= 0 or not select.select([descriptor], [], [], remaining)[0]:
                self.close()  # still working: killed and reaped
                return None
            chunk = os.read(descriptor, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        payload = b"".join(chunks)
        self._finished = True
        self.close()
        return payload[len(_DONE) :] if payload.startswith(_DONE) else None

    def close(self) -> None:
        """Stop waiting: the child is killed if it may still be working, and reaped."""
        if self._pipe.closed:
            return
        self._pipe.close()
        try:
            if not self._finished and os.waitpid(self._child, os.WNOHANG)[0] == 0:
                os.kill(self._child, signal.SIGKILL)
            os.waitpid(self._child, 0)
        except ChildProcessError:
            pass  # already reaped by a wait for any child, or children are reaped automatically


def _run_child(work: Callable[[], bytes | None], reading: int, writing: int) -> NoReturn:
    status = 1
    try:
        os.close(reading)
        gc.disable()
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)
        payload = work()
        if payload is not None:
            remaining = memoryview(_DONE + payload)
            while remaining:
                remaining = remaining[os.write(writing, remaining) :]
            status = 0
    except BaseException:  # the parent gets no result and does the work itself
        pass
    finally:
        os._exit(status)
