"""A read-only picture of the leases and live workers, for operators (`reconciler shards`).

It migrates nothing and writes nothing, so it is safe to point at a production database.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL

from state.database import create_database_engine
from state.errors import StateError
from state.lease_table import ShardLeaseView, lease_table
from state.models import SHARD_LEASES
from state.urls import display_url
from state.workers import LiveWorker, live_workers
from timekeeping import Clock


class DatabaseNotInitialised(StateError):
    """The database has no state tables yet. Policy: permanent until `reconciler db upgrade` runs."""


@dataclass(frozen=True)
class LeaseOverview:
    """Every shard's lease and the live workers, at one instant."""

    shards: tuple[ShardLeaseView, ...]
    workers: tuple[LiveWorker, ...]

    def as_json(self) -> dict[str, Any]:
        """The JSON shape of `reconciler shards --format json`."""
        return {
            "shards": [
                {
                    "shard": lease.shard,
                    "owner": lease.owner,
                    "epoch": lease.epoch,
                    "expires_at": iso_8601(lease.expires_at),
                    "expired": lease.expired,
                }
                for lease in self.shards
            ],
            "workers": [
                {"id": w.id, "host": w.host, "pid": w.pid, "heartbeat_at": iso_8601(w.heartbeat_at)}
                for w in self.workers
            ],
        }


def iso_8601(seconds: float) -> str:
    """Seconds since the epoch as an ISO 8601 UTC timestamp."""
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat()


def read_overview(url: str | URL, *, clock: Clock, worker_timeout: float) -> LeaseOverview:
    """Read the lease table and the workers heard from within `worker_timeout` seconds."""
    engine = create_database_engine(url)
    try:
        with engine.connect() as connection:
            if not sa.inspect(connection).has_table(SHARD_LEASES.name):
                where = display_url(url)
                raise DatabaseNotInitialised(
                    f"{where} has no state tables: run `reconciler db upgrade` on it first"
                )
            now = clock.now()
            shards = lease_table(connection, now=now)
            workers = live_workers(connection, now=now, dead_after=worker_timeout)
    finally:
        engine.dispose()
    return LeaseOverview(tuple(shards), tuple(workers))
