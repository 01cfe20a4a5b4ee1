"""Daemons started together on a fresh database: every one of them opens its store, and the shard
lease rows exist once each. On the real PostgreSQL, where transactions really overlap."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import sqlalchemy as sa

from state.database import create_database_engine
from state.lease_settings import LeaseSettings
from state.leases import ensure_shard_rows
from state.migrate import upgrade
from state.models import SHARD_LEASES
from state.store import open_store
from timekeeping.testing import SteppedClock

SHARDS = 64
DAEMONS = 6


def test_daemons_starting_together_on_a_fresh_database_all_open_their_store(postgres_url: str) -> None:
    start = threading.Barrier(DAEMONS)

    def start_daemon(_: int) -> int:
        start.wait()
        clock = SteppedClock()
        store = open_store(
            postgres_url, clock=clock, settings=LeaseSettings(shard_count=SHARDS), sleeper=clock
        )
        store.close()
        return 1

    with ThreadPoolExecutor(DAEMONS) as pool:
        assert sum(pool.map(start_daemon, range(DAEMONS))) == DAEMONS
    assert _lease_rows(postgres_url) == list(range(SHARDS))


def test_a_second_start_that_found_the_rows_missing_skips_those_made_meanwhile(postgres_url: str) -> None:
    """Both starts read no rows; the first inserts and commits while the second's insert waits on
    it; the second then makes none instead of failing on the primary key."""
    upgrade(postgres_url)
    engine = create_database_engine(postgres_url)
    try:
        with engine.connect() as first, engine.connect() as second:
            first_transaction = first.begin()
            made_by_first = ensure_shard_rows(first, SHARDS)
            with ThreadPoolExecutor(1) as pool:
                made_by_second = pool.submit(_in_transaction, second, SHARDS)
                _wait_until_blocked(engine)
                first_transaction.commit()
                assert made_by_second.result(timeout=30) == 0
        assert made_by_first == SHARDS
    finally:
        engine.dispose()
    assert _lease_rows(postgres_url) == list(range(SHARDS))


def _in_transaction(connection: sa.Connection, shards: int) -> int:
    with connection.begin():
        return ensure_shard_rows(connection, shards)


def _wait_until_blocked(engine: sa.Engine) -> None:
    """Until some session of this database waits on a lock (the second insert, behind the first)."""
    waiting = sa.text(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    with engine.connect() as observer:
        for _ in range(3000):
            if observer.execute(waiting).scalar_one():
                return
            observer.rollback()
            threading.Event().wait(0.01)
    raise AssertionError("the second insert never waited on the first")


def _lease_rows(url: str) -> list[int]:
    engine = create_database_engine(url)
    try:
        with engine.connect() as connection:
            return list(
                connection.execute(sa.select(SHARD_LEASES.c.shard).order_by(SHARD_LEASES.c.shard)).scalars()
            )
    finally:
        engine.dispose()
