"""SQLite: writers serialize on the write lock, while read-only transactions read beside them."""

from __future__ import annotations

import sqlalchemy as sa

from state.database import create_database_engine
from state.store import open_store
from state.transactions import RetryPolicy, Transactor
from state.workers import WorkerIdentity
from timekeeping.testing import SteppedClock


def test_a_reading_transaction_does_not_hold_back_a_writer(sqlite_url: str) -> None:
    clock = SteppedClock()
    store = open_store(sqlite_url, clock=clock, sleeper=clock, retry=RetryPolicy(budget_seconds=0))
    reader = Transactor(create_database_engine(sqlite_url), clock=clock, sleeper=clock)

    def read_while_another_connection_writes(connection: sa.Connection) -> int:
        before = connection.execute(sa.text("SELECT count(*) FROM workers")).scalar_one()
        store.heartbeat(WorkerIdentity("w1", "host", 1))  # would wait on the lock if the reader held it
        return int(before)

    try:
        assert reader.read("count workers", read_while_another_connection_writes) == 0
        assert [worker.id for worker in store.live_workers()] == ["w1"]
    finally:
        reader.engine.dispose()
        store.close()


def test_a_writing_transaction_takes_the_write_lock_at_its_start(sqlite_url: str) -> None:
    clock = SteppedClock()
    store = open_store(sqlite_url, clock=clock, sleeper=clock)
    writer = Transactor(create_database_engine(sqlite_url), clock=clock, sleeper=clock)

    def locked(connection: sa.Connection) -> bool:
        probe = sa.create_engine(sqlite_url, connect_args={"timeout": 0})
        try:
            with probe.connect() as other:
                other.exec_driver_sql("BEGIN IMMEDIATE")
        except sa.exc.OperationalError as error:
            return "locked" in str(error)
        finally:
            probe.dispose()
        return False

    try:
        assert writer.run("hold the lock", locked)
        assert not writer.read("read only", locked)
    finally:
        writer.engine.dispose()
        store.close()
