"""What the state database says, read-only: stacks and their newest generation, records by status,
and who holds which shard. A read that fails (the database restarting) is no reading at all.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import sqlalchemy as sa

STACKS = sa.text("SELECT name, status, status_generation FROM stacks")
NEWEST_GENERATIONS = sa.text(
    "SELECT DISTINCT ON (stack) stack, generation, commit_sha, definition_digest "
    "FROM stack_generations ORDER BY stack, generation DESC"
)
RECORDS_BY_STATUS = sa.text("SELECT status, count(*) FROM resource_records GROUP BY status")
LEASES = sa.text("SELECT shard, owner, expires_at FROM shard_leases")


@dataclass(frozen=True)
class StackRow:
    status: str
    status_generation: int | None
    newest_generation: int | None
    newest_commit: str | None
    newest_digest: str | None


@dataclass(frozen=True)
class Lease:
    owner: str | None
    expires_at: float


@dataclass(frozen=True)
class StateSnapshot:
    """One reading of the database, at `at` (time.time(), the clock the leases are written in)."""

    at: float
    stacks: Mapping[str, StackRow]
    records: Mapping[str, int]
    leases: Mapping[int, Lease]

    def held_by(self, worker: str) -> frozenset[int]:
        """The shards `worker` holds under a lease that has not expired."""
        return frozenset(
            shard
            for shard, lease in self.leases.items()
            if lease.owner == worker and lease.expires_at > self.at
        )

    def holder(self, shard: int) -> str | None:
        lease = self.leases.get(shard)
        return lease.owner if lease is not None and lease.expires_at > self.at else None

    def shards_per_worker(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for shard in self.leases:
            owner = self.holder(shard)
            if owner is not None:
                counts[owner] = counts.get(owner, 0) + 1
        return counts

    def progress_key(self) -> tuple[object, ...]:
        """What changes when convergence moves: records by status, stacks by status and generation."""
        return (
            tuple(sorted(self.records.items())),
            tuple(sorted((name, row.status, row.status_generation) for name, row in self.stacks.items())),
        )


class StateProbe:
    """Reads the run's database; never writes."""

    def __init__(self, url: str) -> None:
        self.engine = sa.create_engine(url, pool_pre_ping=True, pool_size=2)

    def snapshot(self) -> StateSnapshot | None:
        try:
            with self.engine.connect() as connection:
                at = time.time()
                newest = {row[0]: row[1:] for row in connection.execute(NEWEST_GENERATIONS)}
                stacks = {
                    name: StackRow(status, status_generation, *newest.get(name, (None, None, None)))
                    for name, status, status_generation in connection.execute(STACKS)
                }
                records = {status: count for status, count in connection.execute(RECORDS_BY_STATUS)}
                leases = {
                    shard: Lease(owner, expires_at) for shard, owner, expires_at in connection.execute(LEASES)
                }
        except sa.exc.SQLAlchemyError:
            return None
        return StateSnapshot(at, stacks, records, leases)

    def close(self) -> None:
        self.engine.dispose()
