"""Dropped connections and outages on the real PostgreSQL: retried, paused, and never acted through.

The server really drops the connections (`pg_terminate_backend`) and really refuses new ones
(`ALLOW_CONNECTIONS false`); the stepped clock's sleep is what the retry loop waits on.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

from state.database import create_database_engine
from state.errors import DatabaseUnavailable
from state.fencing import Fence, check_fence
from state.lease_results import Acquired, HeldBy
from state.lease_settings import LeaseSettings
from state.shard_keeper import Kept, NotHeld, Paused, ShardKeeper
from state.store import open_store
from state.transactions import RetryPolicy, Transactor, is_transient_failure
from state.workers import WorkerIdentity
from timekeeping.testing import SteppedClock

pytestmark = pytest.mark.postgres


def terminate_connections(server: URL, database: str) -> int:
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            return len(
                connection.execute(
                    sa.text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :name AND pid <> pg_backend_pid()"
                    ),
                    {"name": database},
                ).all()
            )
    finally:
        admin.dispose()


@contextmanager
def _database_refusing_connections(server: URL, database: str) -> Iterator[None]:
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(sa.text(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false'))
        terminate_connections(server, database)
        yield
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true'))
        admin.dispose()


def test_a_store_carries_on_after_the_server_drops_its_connections(
    postgres_url: str, postgres_server_url: URL
) -> None:
    clock = SteppedClock()
    store = open_store(postgres_url, clock=clock, settings=LeaseSettings(shard_count=4), sleeper=clock)
    try:
        store.ensure_stack("app")
        assert terminate_connections(postgres_server_url, make_url(postgres_url).database or "") >= 1
        assert store.read_stack("app") is not None
    finally:
        store.close()


def test_a_transaction_whose_connection_drops_midway_is_run_again(postgres_url: str) -> None:
    clock = SteppedClock()
    transactor = Transactor(create_database_engine(postgres_url), clock=clock, sleeper=clock)
    attempts: list[int] = []

    def work(connection: sa.Connection) -> int:
        attempts.append(1)
        if len(attempts) == 1:  # the server kills this very session halfway through the transaction
            connection.execute(sa.text("SELECT pg_terminate_backend(pg_backend_pid())"))
        return int(connection.execute(sa.text("SELECT 41 + 1")).scalar_one())

    try:
        assert transactor.run("answer", work) == 42
    finally:
        transactor.engine.dispose()
    assert len(attempts) == 2
    assert len(clock.slept) == 1


def test_an_outage_past_the_retry_budget_raises_database_unavailable(
    postgres_url: str, postgres_server_url: URL
) -> None:
    clock = SteppedClock()
    store = open_store(
        postgres_url,
        clock=clock,
        sleeper=clock,
        retry=RetryPolicy(budget_seconds=3.0),
        settings=LeaseSettings(4),
    )
    try:
        with (
            _database_refusing_connections(postgres_server_url, make_url(postgres_url).database or ""),
            pytest.raises(DatabaseUnavailable) as raised,
        ):
            store.read_stack("app")
    finally:
        store.close()
    assert sum(clock.slept) <= 3.0
    assert raised.value.attempts > 1
    assert "password" not in str(raised.value).lower()


def test_a_worker_cut_off_from_the_database_stops_acting_before_its_leases_can_expire(
    postgres_url: str, postgres_server_url: URL
) -> None:
    clock = SteppedClock()
    settings = LeaseSettings(shard_count=4, lease_seconds=15, renew_seconds=5, safety_margin=1)
    store = open_store(
        postgres_url, clock=clock, sleeper=clock, retry=RetryPolicy(budget_seconds=2.0), settings=settings
    )
    keeper = ShardKeeper(store, WorkerIdentity("w1", "host", 1), clock=clock)
    try:
        assert isinstance(keeper.tick(), Kept)
        expires_at = clock.now() + settings.lease_seconds
        assert sorted(keeper.fences()) == [0, 1, 2, 3]

        with _database_refusing_connections(postgres_server_url, make_url(postgres_url).database or ""):
            outcomes = []
            while clock.now() < expires_at:
                outcomes.append(keeper.tick())
                clock.advance(settings.renew_seconds)
                if clock.now() >= expires_at - settings.safety_margin:
                    assert keeper.fences() == {}
                    assert keeper.fence_for(0) == NotHeld(0)

        assert outcomes and all(isinstance(outcome, Paused) for outcome in outcomes)
        recovered = keeper.tick()
        assert isinstance(recovered, Kept)
        assert sorted(keeper.fences()) == [0, 1, 2, 3]
        assert all(fence.epoch == 2 for fence in keeper.fences().values())
    finally:
        store.close()


def test_a_worker_frozen_inside_a_fenced_write_cannot_keep_its_shard_from_being_taken_over(
    postgres_url: str,
) -> None:
    clock = SteppedClock()
    settings = LeaseSettings(shard_count=1, lease_seconds=1.5, renew_seconds=0.5, safety_margin=0.2)
    store = open_store(postgres_url, clock=clock, sleeper=clock, settings=settings)
    frozen = create_database_engine(postgres_url, idle_transaction_timeout=0.3)
    try:
        assert isinstance(store.acquire("frozen", 0), Acquired)
        connection = frozen.connect()
        connection.begin()
        check_fence(connection, Fence(0, 1), now=clock.now())  # holds the lease row, then freezes
        clock.advance(settings.lease_seconds)

        assert isinstance(store.acquire("other", 0), HeldBy)  # the row is locked: skipped, not waited on
        time.sleep(1.0)  # the server's own idle-transaction timer, which no injected clock can step

        assert store.acquire("other", 0) == Acquired(0, 2, clock.now() + settings.lease_seconds)
        with pytest.raises(sa.exc.DBAPIError) as ended:
            connection.execute(sa.text("SELECT 1"))
        assert is_transient_failure(ended.value)  # a store would run the transaction again and get StaleLease
        connection.invalidate()
    finally:
        frozen.dispose()
        store.close()
