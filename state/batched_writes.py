"""Small writes from many threads, committed together by one writer thread.

Agents' signals arrive on the agent API's threads, each a write of one row. Committed one by one,
each pays a whole commit (an fsync on SQLite and on PostgreSQL alike), and on SQLite they also
queue for its single write lock. Here they go into a queue instead; one writer thread takes all
that are waiting (up to `max_batch`), runs them in one transaction, commits, and only then hands
each caller its own result: a signal is acknowledged once it is durable, never before.

A batch whose transaction fails (one unit of work raising, say) is run again one unit at a time,
so each caller gets its own result or its own error, and one bad signal fails no other.
The writer thread starts on the first write and ends after `idle_seconds` without any.

`BatchedItems` is the same for items that one function writes together (a query for all of them,
then one statement with many parameter sets): on PostgreSQL a round trip per statement, not per
item, is what makes a batch cheap. It may have more than one writer (`writers`): on PostgreSQL one
batch's statements then run while another's commit waits for the disk; on SQLite, whose one write
lock they would queue for, one writer is all that helps. With `standalone`, `write_all` runs
through `Transactor.run_standalone` (each statement committing on its own, no BEGIN or COMMIT
round trip): for a `write_all` whose one write is a single statement that may run again whole;
a caller still has its result only once that statement committed.
"""

from __future__ import annotations

import functools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

import sqlalchemy as sa

from state.transactions import Transactor

T = TypeVar("T")
Item = TypeVar("Item")
Result = TypeVar("Result")
Work = Callable[[sa.Connection], Any]


class BatchedItems(Generic[Item, Result]):
    """`write(item)` writes `item` with `write_all`, in a transaction shared with the items queued
    beside it; `write_all(connection, items)` gives one result per item, in order."""

    def __init__(
        self,
        transactor: Transactor,
        operation: str,
        write_all: Callable[[sa.Connection, list[Item]], list[Result]],
        *,
        max_batch: int = 500,
        idle_seconds: float = 5.0,
        writers: int = 1,
        standalone: bool = False,
        urgent: bool = False,
    ) -> None:
        """`urgent`: callers wait on each batch (agents on their signals' answers), so on SQLite
        its turn to write comes before the process' other writers' (`Transactor.run`)."""
        self._operation = operation
        self._write_all = write_all
        self._max_batch = max_batch
        self._idle_seconds = idle_seconds
        self._most_writers = writers
        self._run = (
            transactor.run_standalone if standalone else functools.partial(transactor.run, urgent=urgent)
        )
        self._queue: queue.SimpleQueue[tuple[Item, Future[Result]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._writers: list[threading.Thread] = []

    def write(self, item: Item) -> Result:
        """Queue `item`, wait until the transaction holding it committed, and return its result."""
        return self.submit(item).result()

    def submit(self, item: Item) -> Future[Result]:
        """Queue `item`; its result (or error) once the transaction holding it committed."""
        done: Future[Result] = Future()
        self._queue.put((item, done))
        self._ensure_writer()
        return done

    def _ensure_writer(self) -> None:
        writers = self._writers
        if len(writers) >= self._most_writers and all(writer.is_alive() for writer in writers):
            # read without the lock: a thousand callers at once would queue on it, one hand-over of
            # the GIL each; a writer leaving meanwhile looks at the queue once more (`_drain`)
            return
        with self._lock:
            self._writers = [writer for writer in self._writers if writer.is_alive()]
            if len(self._writers) < self._most_writers:
                writer = threading.Thread(target=self._drain, name=f"batched {self._operation}", daemon=True)
                self._writers.append(writer)
                writer.start()

    def _drain(self) -> None:  # a writer thread
        while True:
            try:
                first = self._queue.get(timeout=self._idle_seconds)
            except queue.Empty:
                with self._lock:
                    if not self._queue.empty():
                        continue
                    self._writers.remove(threading.current_thread())
                if not self._queue.empty():  # queued by a caller that still saw this writer listed
                    self._ensure_writer()
                return
            batch = [first]
            while len(batch) < self._max_batch:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._commit(batch)

    def _commit(self, batch: list[tuple[Item, Future[Result]]]) -> None:
        items = [item for item, _ in batch]
        try:
            results = self._run(self._operation, lambda c: self._write_all(c, items))
        except Exception:
            for queued in batch:
                self._one(queued)
            return
        for (_, done), result in zip(batch, results, strict=True):
            done.set_result(result)

    def _one(self, queued: tuple[Item, Future[Result]]) -> None:
        item, done = queued
        try:
            done.set_result(self._run(self._operation, lambda c: self._write_all(c, [item]))[0])
        except Exception as error:
            done.set_exception(error)


class BatchedWrites(BatchedItems[Work, Any]):
    """`write(work)` runs `work` in a transaction shared with the writes queued beside it."""

    def __init__(
        self, transactor: Transactor, operation: str, *, max_batch: int = 500, idle_seconds: float = 5.0
    ) -> None:
        super().__init__(
            transactor,
            operation,
            lambda connection, works: [work(connection) for work in works],
            max_batch=max_batch,
            idle_seconds=idle_seconds,
        )
