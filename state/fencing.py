"""Fencing: a write on behalf of a shard is applied only while its epoch is current, in the same transaction.

`check_fence` runs first in the writing transaction. On PostgreSQL it takes a share lock on the
lease row, so a takeover (which bumps the epoch with `FOR UPDATE SKIP LOCKED`) cannot slip in
between the check and the commit: the write lands entirely before the new epoch, or not at all. On
SQLite the transaction already holds the database's write lock. A stale epoch raises `StaleLease`
and the transaction rolls back, so nothing of the write remains.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import sqlalchemy as sa

from state.errors import StaleLease
from state.models import SHARD_LEASES as LEASES


@dataclass(frozen=True)
class Fence:
    """The shard and epoch a write is made under."""

    shard: int
    epoch: int


# Built once: the engine checks a fence on every pass that writes, and building the statement
# cost more than running it.
_FENCE_QUERY = sa.select(LEASES.c.epoch).where(
    LEASES.c.shard == sa.bindparam("shard"),
    LEASES.c.epoch == sa.bindparam("epoch"),
    LEASES.c.owner.is_not(None),
    LEASES.c.expires_at > sa.bindparam("now"),
)
_FENCE_QUERY_SHARE_LOCKED = _FENCE_QUERY.with_for_update(read=True)


def check_fence(connection: sa.Connection, fence: Fence, *, now: float) -> None:
    """Raise `StaleLease` unless `fence.epoch` is the shard's current, held and unexpired epoch."""
    query = _FENCE_QUERY_SHARE_LOCKED if connection.dialect.name == "postgresql" else _FENCE_QUERY
    found = connection.execute(query, {"shard": fence.shard, "epoch": fence.epoch, "now": now}).first()
    if found is None:
        raise StaleLease(fence.shard, fence.epoch)


_CURRENT_EPOCHS = sa.select(LEASES.c.shard, LEASES.c.epoch).where(
    LEASES.c.shard.in_(sa.bindparam("shards", expanding=True)),
    LEASES.c.owner.is_not(None),
    LEASES.c.expires_at > sa.bindparam("now"),
)
_CURRENT_EPOCHS_SHARE_LOCKED = _CURRENT_EPOCHS.order_by(LEASES.c.shard).with_for_update(read=True)


def stale_fences(connection: sa.Connection, fences: Collection[Fence], *, now: float) -> set[Fence]:
    """Those of `fences` whose epoch is not their shard's current, held and unexpired one, in one
    query; the current ones are share-locked on PostgreSQL, as `check_fence` locks its one."""
    if not fences:
        return set()
    query = _CURRENT_EPOCHS_SHARE_LOCKED if connection.dialect.name == "postgresql" else _CURRENT_EPOCHS
    shards = sorted({fence.shard for fence in fences})
    rows = connection.execute(query, {"shards": shards, "now": now})
    current = {Fence(shard, epoch) for shard, epoch in rows}
    return {fence for fence in fences if fence not in current}
