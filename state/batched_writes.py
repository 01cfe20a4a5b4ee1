"""Small writes from many threads, committed together by one writer thread.

Agents' signals arrive on the agent API's threads, each a write of one row. Committed one by one,
each pays a whole commit (an fsync on SQLite and on PostgreSQL alike), and on SQLite they also
queue for its single write lock. Here they go into a queue instead; one writer thread takes all
that are waiting (up to `max_batch`), runs them in one transaction, commits, and only then hands
each caller its own result: a signal is acknowledged once it is durable, never before.

A batch whose transaction fails (one unit of work raising, say) is run again one unit at a time,
so each caller gets its own result or its own error, and one bad signal fails no other.
The writer thread starts on the first write and ends after `idle_seconds` without any.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

import sqlalchemy as sa

from state.transactions import Transactor

T = TypeVar("T")
Work = Callable[[sa.Connection], Any]


class BatchedWrites:
    """`write(work)` runs `work` in a transaction shared with the writes queued beside it."""

    def __init__(
        self, transactor: Transactor, operation: str, *, max_batch: int = 500, idle_seconds: float = 5.0
    ) -> None:
        self._tx = transactor
        self._operation = operation
        self._max_batch = max_batch
        self._idle_seconds = idle_seconds
        self._queue: queue.SimpleQueue[tuple[Work, Future[Any]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._writer: threading.Thread | None = None

    def write(self, work: Callable[[sa.Connection], T]) -> T:
        """Queue `work`, wait until the transaction holding it committed, and return its result."""
        done: Future[T] = Future()
        self._queue.put((work, done))
        self._ensure_writer()
        return done.result()

    def _ensure_writer(self) -> None:
        with self._lock:
            if self._writer is None or not self._writer.is_alive():
                self._writer = threading.Thread(
                    target=self._drain, name=f"batched {self._operation}", daemon=True
                )
                self._writer.start()

    def _drain(self) -> None:
        while True:
            try:
                first = self._queue.get(timeout=self._idle_seconds)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._writer = None
                        return
                continue
            batch = [first]
            while len(batch) < self._max_batch:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._commit(batch)

    def _commit(self, batch: list[tuple[Work, Future[Any]]]) -> None:
        try:
            results = self._tx.run(self._operation, lambda c: [work(c) for work, _ in batch])
        except Exception:
            for item in batch:
                self._one(item)
            return
        for (_, done), result in zip(batch, results, strict=True):
            done.set_result(result)

    def _one(self, item: tuple[Work, Future[Any]]) -> None:
        work, done = item
        try:
            done.set_result(self._tx.run(self._operation, work))
        except Exception as error:
            done.set_exception(error)
