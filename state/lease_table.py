"""The whole lease table as operators see it (`reconciler shards`)."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from state.models import SHARD_LEASES as LEASES


@dataclass(frozen=True)
class ShardLeaseView:
    """One shard's lease: holder (None when free), epoch, expiry and whether it has passed."""

    shard: int
    owner: str | None
    epoch: int
    expires_at: float
    expired: bool


def lease_table(connection: sa.Connection, *, now: float) -> list[ShardLeaseView]:
    """Every shard's lease, by shard number."""
    rows = connection.execute(
        sa.select(LEASES.c.shard, LEASES.c.owner, LEASES.c.epoch, LEASES.c.expires_at).order_by(
            LEASES.c.shard
        )
    )
    return [
        ShardLeaseView(shard, owner, epoch, expires_at, expired=expires_at <= now)
        for shard, owner, epoch, expires_at in rows
    ]
