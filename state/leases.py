"""The lease protocol of one worker over shards: acquire, renew, release, as conditional UPDATEs.

A shard's row carries its owner, an epoch (the fencing token) and an expiry. Acquiring a free or
expired shard bumps the epoch; renewing extends the expiry only while the same epoch is current and
unexpired; releasing clears the owner. On PostgreSQL the rows to take are picked with
`FOR UPDATE SKIP LOCKED` in shard order, so competing workers never wait on or deadlock with each
other; a row locked by a fenced write in flight is skipped until that write commits. On SQLite the
whole transaction holds the write lock (`BEGIN IMMEDIATE`), which gives the same guarantee.
"""

from __future__ import annotations

from collections.abc import Collection

import sqlalchemy as sa

from state.lease_results import (
    Acquired,
    AcquireResult,
    HeldBy,
    HeldShard,
    Lost,
    Released,
    ReleaseResult,
    RenewResult,
)
from state.models import SHARD_LEASES as LEASES
from state.upserts import dialect_insert


def ensure_shard_rows(connection: sa.Connection, shard_count: int) -> int:
    """Create the lease rows of shards 0 .. shard_count-1 that are missing; returns how many were made.

    Daemons starting together on a fresh database all find the rows missing: the insert skips a row
    another one made meanwhile (ON CONFLICT DO NOTHING) instead of failing on the primary key.
    """
    existing = set(connection.execute(sa.select(LEASES.c.shard)).scalars())
    missing = [
        {"shard": shard, "owner": None, "epoch": 0, "expires_at": 0.0}
        for shard in range(shard_count)
        if shard not in existing
    ]
    if not missing:
        return 0
    inserted = connection.execute(
        dialect_insert(connection, LEASES)
        .on_conflict_do_nothing(index_elements=["shard"])
        .returning(LEASES.c.shard),
        missing,
    )
    return len(inserted.all())


def _takeable(shards: Collection[int], now: float, postgresql: bool) -> sa.Select[tuple[int, str | None]]:
    query = (
        sa.select(LEASES.c.shard, LEASES.c.owner)
        .where(LEASES.c.shard.in_(shards), sa.or_(LEASES.c.owner.is_(None), LEASES.c.expires_at <= now))
        .order_by(LEASES.c.shard)
    )
    return query.with_for_update(skip_locked=True) if postgresql else query


def take_shards(
    connection: sa.Connection,
    worker: str,
    shards: Collection[int],
    *,
    now: float,
    lease_seconds: float,
    limit: int | None = None,
) -> list[Acquired]:
    """Take up to `limit` of `shards` that are free or expired, each at a new epoch."""
    if not shards or limit == 0:
        return []
    postgresql = connection.dialect.name == "postgresql"
    candidates = _takeable(shards, now, postgresql)
    if limit is not None:
        candidates = candidates.limit(limit)
    previous: dict[int, str | None] = {row.shard: row.owner for row in connection.execute(candidates)}
    picked = list(previous)
    if not picked:
        return []
    until = now + lease_seconds
    rows = connection.execute(
        sa.update(LEASES)
        .where(LEASES.c.shard.in_(picked), sa.or_(LEASES.c.owner.is_(None), LEASES.c.expires_at <= now))
        .values(owner=worker, epoch=LEASES.c.epoch + 1, expires_at=until)
        .returning(LEASES.c.shard, LEASES.c.epoch)
    )
    return sorted(
        (Acquired(shard, epoch, until, taken_from=previous.get(shard)) for shard, epoch in rows),
        key=lambda held: held.shard,
    )


def acquire(
    connection: sa.Connection, worker: str, shard: int, *, now: float, lease_seconds: float
) -> AcquireResult:
    """Acquire one shard: renewed if the caller holds it already, taken at a new epoch if free or expired."""
    renewed = renew_all(connection, worker, [shard], now=now, lease_seconds=lease_seconds)
    if renewed:
        return renewed[0]
    taken = take_shards(connection, worker, [shard], now=now, lease_seconds=lease_seconds)
    if taken:
        return taken[0]
    owner, expires_at = connection.execute(
        sa.select(LEASES.c.owner, LEASES.c.expires_at).where(LEASES.c.shard == shard)
    ).one()
    # Owner is None only while a fenced write of a just-released lease is still committing.
    return HeldBy(shard, owner or "", expires_at)


def renew(
    connection: sa.Connection, worker: str, shard: int, epoch: int, *, now: float, lease_seconds: float
) -> RenewResult:
    """Extend the caller's lease on `shard` at `epoch` if it is still current and unexpired."""
    until = now + lease_seconds
    row = connection.execute(
        sa.update(LEASES)
        .where(
            LEASES.c.shard == shard,
            LEASES.c.owner == worker,
            LEASES.c.epoch == epoch,
            LEASES.c.expires_at > now,
        )
        .values(expires_at=until)
        .returning(LEASES.c.epoch)
    ).first()
    return Lost(shard) if row is None else Acquired(shard, epoch, until)


def renew_all(
    connection: sa.Connection,
    worker: str,
    shards: Collection[int] | None = None,
    *,
    now: float,
    lease_seconds: float,
) -> list[Acquired]:
    """Extend every unexpired lease the caller holds (or those of them among `shards`), in one UPDATE."""
    until = now + lease_seconds
    condition = sa.and_(LEASES.c.owner == worker, LEASES.c.expires_at > now)
    if shards is not None:
        condition = sa.and_(condition, LEASES.c.shard.in_(shards))
    rows = connection.execute(
        sa.update(LEASES).where(condition).values(expires_at=until).returning(LEASES.c.shard, LEASES.c.epoch)
    )
    return sorted((Acquired(shard, epoch, until) for shard, epoch in rows), key=lambda held: held.shard)


def release(connection: sa.Connection, worker: str, shard: int, epoch: int, *, now: float) -> ReleaseResult:
    """Give a shard back; only the holder of the current epoch can."""
    released = release_many(connection, worker, {shard: epoch}, now=now)
    return Released(shard) if released else Lost(shard)


def release_many(
    connection: sa.Connection, worker: str, held: dict[int, int], *, now: float
) -> list[Released]:
    """Give several shards back (shard -> epoch); those no longer held at that epoch are skipped."""
    released: list[Released] = []
    for shard, epoch in sorted(held.items()):
        row = connection.execute(
            sa.update(LEASES)
            .where(LEASES.c.shard == shard, LEASES.c.owner == worker, LEASES.c.epoch == epoch)
            .values(owner=None, expires_at=now)
            .returning(LEASES.c.shard)
        ).first()
        if row is not None:
            released.append(Released(shard))
    return released


def shards_held(connection: sa.Connection, worker: str, *, now: float) -> list[HeldShard]:
    """The shards `worker` holds unexpired, with their epochs, as the database records them."""
    rows = connection.execute(
        sa.select(LEASES.c.shard, LEASES.c.epoch, LEASES.c.expires_at)
        .where(LEASES.c.owner == worker, LEASES.c.expires_at > now)
        .order_by(LEASES.c.shard)
    )
    return [HeldShard(shard, epoch, expires_at) for shard, epoch, expires_at in rows]


def free_or_expired_shards(connection: sa.Connection, *, now: float) -> list[int]:
    """Shards nobody holds right now."""
    return list(
        connection.execute(
            sa.select(LEASES.c.shard)
            .where(sa.or_(LEASES.c.owner.is_(None), LEASES.c.expires_at <= now))
            .order_by(LEASES.c.shard)
        ).scalars()
    )


def next_expiry_of_others(connection: sa.Connection, worker: str, *, now: float) -> float | None:
    """The soonest expiry among unexpired leases held by other workers (None if there are none)."""
    return connection.execute(
        sa.select(sa.func.min(LEASES.c.expires_at)).where(
            LEASES.c.owner.is_not(None), LEASES.c.owner != worker, LEASES.c.expires_at > now
        )
    ).scalar_one_or_none()
