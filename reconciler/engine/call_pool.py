"""The bounded set of threads that run provider calls.

`concurrent.futures.ThreadPoolExecutor` decides on every submit whether to start another thread,
through a Python-level semaphore; with ten thousand calls queued behind two hundred busy threads
that decision cost the engine's loop more CPU than the engine's own work (and every lock taken
under the GIL with hundreds of threads awake is a hand-off). Here the threads start once, on the
first call, and a submit is one put on a C-implemented queue.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

_Work = tuple[Future[Any], Callable[[], Any]]


class CallPool:
    """Runs submitted calls on `size` threads; each call's outcome arrives on its Future."""

    def __init__(self, size: int, name: str) -> None:
        self._size = size
        self._name = name
        self._queue: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._start_lock = threading.Lock()
        self._closed = False

    def submit(self, call: Callable[[], T]) -> Future[T]:
        if self._closed:
            raise RuntimeError("the call pool is shut down")
        if not self._threads:
            self._start()
        future: Future[T] = Future()
        self._queue.put((future, call))
        return future

    def shutdown(self, *, cancel_pending: bool = True) -> None:
        """Stop taking calls; cancel those not started (if asked), let running ones finish."""
        self._closed = True
        if cancel_pending:
            self._cancel_pending()
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join()
        self._threads = []

    def _start(self) -> None:
        with self._start_lock:
            if self._threads:
                return
            threads = [
                threading.Thread(target=self._work, name=f"{self._name}-{index}", daemon=True)
                for index in range(self._size)
            ]
            for thread in threads:
                thread.start()
            self._threads = threads

    def _cancel_pending(self) -> None:
        while True:
            try:
                work = self._queue.get_nowait()
            except queue.Empty:
                return
            if work is not None:
                work[0].cancel()

    def _work(self) -> None:
        while (work := self._queue.get()) is not None:
            future, call = work
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = call()
            except BaseException as error:  # the Future carries it to the engine's loop
                future.set_exception(error)
            else:
                future.set_result(result)
