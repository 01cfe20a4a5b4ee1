"""A lock for short sections run by hundreds of threads under one interpreter lock.

A blocking `threading.Lock.acquire` waits with the interpreter lock released, takes the lock as
soon as it is free, and only then waits for the interpreter lock to run again: the lock stays held
by a thread that cannot run. With hundreds of threads calling the simulated cloud, every thread
behind it then blocks too (a lock convoy), and a short section is waited on far longer than it
runs, each call holding its concurrency slot all that time.

`RunnableLock` is only ever taken by a thread that is running: it tries without blocking and,
when the lock is held, yields the interpreter lock (the holder was preempted mid-section and gets
to finish) and tries again. Sections must be short and never block; the cloud's are.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType


class RunnableLock:
    """A mutual-exclusion lock taken without blocking; use it as a context manager."""

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> RunnableLock:
        lock = self._lock
        while not lock.acquire(blocking=False):
            time.sleep(0)  # lets the holder run and finish its section
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._lock.release()
