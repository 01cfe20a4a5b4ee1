"""Items written by many threads at once share transactions, each caller gets its own result, and an
item queued just as the writer leaves (idle) is still written."""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from pathlib import Path

import sqlalchemy as sa

from state.batched_writes import BatchedItems
from state.transactions import Transactor
from timekeeping import SystemClock

WAIT = 10.0  # seconds a test waits at most for a result; never reached when writes are written
CALLERS = 300


def transactor(path: Path) -> Transactor:
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE items (value INTEGER)")
    clock = SystemClock()
    return Transactor(engine, clock=clock, sleeper=clock)


def insert_all(connection: sa.Connection, values: list[int]) -> list[int]:
    connection.execute(sa.text("INSERT INTO items (value) VALUES (:value)"), [{"value": v} for v in values])
    return [value * 2 for value in values]


def stored(writes: Transactor) -> list[int]:
    return writes.read(
        "read", lambda c: sorted(row[0] for row in c.exec_driver_sql("SELECT value FROM items"))
    )


def test_items_from_many_threads_share_transactions_and_each_gets_its_own_result(tmp_path: Path) -> None:
    writes = transactor(tmp_path / "items.db")
    batches: list[int] = []

    def counted(connection: sa.Connection, values: list[int]) -> list[int]:
        batches.append(len(values))
        return insert_all(connection, values)

    items = BatchedItems(writes, "items", counted)
    start = threading.Barrier(CALLERS)
    results: dict[int, int] = {}

    def write(value: int) -> None:
        start.wait()
        results[value] = items.write(value)

    threads = [threading.Thread(target=write, args=(value,)) for value in range(CALLERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)

    assert results == {value: value * 2 for value in range(CALLERS)}
    assert stored(writes) == list(range(CALLERS))
    assert sum(batches) == CALLERS and len(batches) < CALLERS / 2  # written together, not one by one


class LateQueue(queue.SimpleQueue[tuple[int, "Future[int]"]]):
    """A queue that, the first time the idle writer finds it empty, has an item put on it at once:
    by a caller that still saw that writer listed and so starts none."""

    def __init__(self) -> None:
        super().__init__()
        self.late: tuple[int, Future[int]] | None = None

    def empty(self) -> bool:
        found = super().empty()
        if found and self.late is not None:
            late, self.late = self.late, None
            self.put(late)
        return found


def test_an_item_queued_as_the_idle_writer_leaves_is_still_written(tmp_path: Path) -> None:
    writes = transactor(tmp_path / "items.db")
    items = BatchedItems(writes, "items", insert_all, idle_seconds=0.05)
    late_queue = LateQueue()
    items._queue = late_queue
    assert items.write(1) == 2  # a writer started; it leaves once idle

    late: Future[int] = Future()
    late_queue.late = (7, late)  # put just after the leaving writer found the queue empty

    assert late.result(WAIT) == 14
    assert stored(writes) == [1, 7]
