"""The work queue: cloud operations any live worker may claim, in batches.

Claim picks due, ready items in order; on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so concurrent
claimers take disjoint batches without waiting on each other. On SQLite the claiming transaction
holds the write lock, which serializes claimers instead. Completion, retry and failure are
conditional on the item still being claimed by the caller: an item reclaimed from a worker presumed
dead (and perhaps claimed by another since) cannot be completed twice.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from state.models import WORK_ITEMS

ID_CHUNK = 5_000


class WorkStatus(enum.StrEnum):
    """Where a work item is in its life."""

    READY = "ready"
    CLAIMED = "claimed"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class NewWorkItem:
    """An operation to enqueue; due at `not_before` (now when None)."""

    shard: int
    stack: str
    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    not_before: float | None = None


@dataclass(frozen=True, slots=True)
class ClaimedWorkItem:
    """An item the caller now holds; `attempts` counts this claim too."""

    id: int
    shard: int
    stack: str
    kind: str
    payload: dict[str, Any]
    attempts: int


@dataclass(frozen=True, slots=True)
class RetryRequest:
    """Put an item back, due after `delay` seconds, with the error that made it necessary."""

    item_id: int
    delay: float
    error: str


@dataclass(frozen=True)
class Settled:
    """Which items the caller settled, and which it no longer held (reclaimed or already settled)."""

    settled: tuple[int, ...]
    not_held: tuple[int, ...]


def enqueue(connection: sa.Connection, items: Sequence[NewWorkItem], *, now: float) -> list[int]:
    """Enqueue items in one multi-row INSERT; returns their ids in the order given."""
    if not items:
        return []
    rows = [
        {
            "shard": item.shard,
            "stack": item.stack,
            "kind": item.kind,
            "payload": item.payload,
            "status": WorkStatus.READY.value,
            "attempts": 0,
            "next_attempt_at": now if item.not_before is None else item.not_before,
            "created_at": now,
        }
        for item in items
    ]
    result = connection.execute(
        sa.insert(WORK_ITEMS).returning(WORK_ITEMS.c.id, sort_by_parameter_order=True), rows
    )
    return list(result.scalars())


def any_due(connection: sa.Connection, *, now: float) -> bool:
    """Whether some ready item is due (a read: claimers ask it before taking the write lock)."""
    query = (
        sa.select(WORK_ITEMS.c.id)
        .where(WORK_ITEMS.c.status == WorkStatus.READY.value, WORK_ITEMS.c.next_attempt_at <= now)
        .limit(1)
    )
    return connection.execute(query).first() is not None


def claim(connection: sa.Connection, worker: str, limit: int, *, now: float) -> list[ClaimedWorkItem]:
    """Claim up to `limit` due, ready items for `worker`."""
    due = (
        sa.select(WORK_ITEMS.c.id)
        .where(WORK_ITEMS.c.status == WorkStatus.READY.value, WORK_ITEMS.c.next_attempt_at <= now)
        .order_by(WORK_ITEMS.c.next_attempt_at, WORK_ITEMS.c.id)
        .limit(limit)
    )
    if connection.dialect.name == "postgresql":
        due = due.with_for_update(skip_locked=True)
    picked = due.cte("picked")
    rows = connection.execute(
        sa.update(WORK_ITEMS)
        .where(WORK_ITEMS.c.id.in_(sa.select(picked.c.id)))
        .values(
            status=WorkStatus.CLAIMED.value,
            claimed_by=worker,
            claimed_at=now,
            attempts=WORK_ITEMS.c.attempts + 1,
        )
        .returning(
            WORK_ITEMS.c.id,
            WORK_ITEMS.c.shard,
            WORK_ITEMS.c.stack,
            WORK_ITEMS.c.kind,
            WORK_ITEMS.c.payload,
            WORK_ITEMS.c.attempts,
        )
    )
    return sorted((ClaimedWorkItem(*row) for row in rows), key=lambda item: item.id)


def _settle(
    connection: sa.Connection, worker: str, item_ids: Sequence[int], values: dict[str, Any]
) -> Settled:
    settled: list[int] = []
    for start in range(0, len(item_ids), ID_CHUNK):
        chunk = item_ids[start : start + ID_CHUNK]
        rows = connection.execute(
            sa.update(WORK_ITEMS)
            .where(
                WORK_ITEMS.c.id.in_(chunk),
                WORK_ITEMS.c.claimed_by == worker,
                WORK_ITEMS.c.status == WorkStatus.CLAIMED.value,
            )
            .values(**values)
            .returning(WORK_ITEMS.c.id)
        )
        settled.extend(rows.scalars())
    done = set(settled)
    return Settled(settled=tuple(sorted(done)), not_held=tuple(sorted(set(item_ids) - done)))


def complete(connection: sa.Connection, worker: str, item_ids: Sequence[int], *, now: float) -> Settled:
    """Mark items done; only those still claimed by `worker` are."""
    return _settle(connection, worker, item_ids, {"status": WorkStatus.DONE.value, "completed_at": now})


def complete_with_results(
    connection: sa.Connection, worker: str, results: Mapping[int, dict[str, Any]], *, now: float
) -> Settled:
    """Mark items done with each one's result (its new payload), in one batched UPDATE.

    Only the items still claimed by `worker` are settled: a result from a worker presumed dead
    (its item reclaimed, maybe run again elsewhere) is dropped.
    """
    held = _still_held(connection, worker, list(results))
    rows = [{"item_id": item_id, "result": results[item_id]} for item_id in sorted(held)]
    if rows:
        connection.execute(
            sa.update(WORK_ITEMS)
            .where(WORK_ITEMS.c.id == sa.bindparam("item_id"))
            .values(status=WorkStatus.DONE.value, completed_at=now, payload=sa.bindparam("result")),
            rows,
        )
    return Settled(settled=tuple(sorted(held)), not_held=tuple(sorted(set(results) - held)))


def stacks_of(connection: sa.Connection, item_ids: Sequence[int]) -> dict[int, str]:
    """The stack each of `item_ids` was queued for, by id."""
    found: dict[int, str] = {}
    for start in range(0, len(item_ids), ID_CHUNK):
        chunk = list(item_ids[start : start + ID_CHUNK])
        rows = connection.execute(
            sa.select(WORK_ITEMS.c.id, WORK_ITEMS.c.stack).where(WORK_ITEMS.c.id.in_(chunk))
        )
        found.update({row.id: row.stack for row in rows})
    return found


@dataclass(frozen=True, slots=True)
class FinishedWorkItem:
    """An item that is done (its payload then holds its result) or failed for good."""

    id: int
    status: WorkStatus
    payload: dict[str, Any]
    last_error: str | None


def read_finished(connection: sa.Connection, item_ids: Sequence[int]) -> list[FinishedWorkItem]:
    """The items among `item_ids` that finished (done or failed), by id."""
    finished: list[FinishedWorkItem] = []
    for start in range(0, len(item_ids), ID_CHUNK):
        rows = connection.execute(
            sa.select(WORK_ITEMS.c.id, WORK_ITEMS.c.status, WORK_ITEMS.c.payload, WORK_ITEMS.c.last_error)
            .where(
                WORK_ITEMS.c.id.in_(item_ids[start : start + ID_CHUNK]),
                WORK_ITEMS.c.status.in_([WorkStatus.DONE.value, WorkStatus.FAILED.value]),
            )
            .order_by(WORK_ITEMS.c.id)
        )
        finished.extend(FinishedWorkItem(i, WorkStatus(status), p, e) for i, status, p, e in rows)
    return finished


def withdraw(connection: sa.Connection, item_ids: Sequence[int]) -> list[int]:
    """Delete the items among `item_ids` nobody has claimed yet; the ids withdrawn."""
    withdrawn: list[int] = []
    for start in range(0, len(item_ids), ID_CHUNK):
        rows = connection.execute(
            sa.delete(WORK_ITEMS)
            .where(
                WORK_ITEMS.c.id.in_(item_ids[start : start + ID_CHUNK]),
                WORK_ITEMS.c.status == WorkStatus.READY.value,
            )
            .returning(WORK_ITEMS.c.id)
        )
        withdrawn.extend(rows.scalars())
    return withdrawn


def forget(connection: sa.Connection, item_ids: Sequence[int]) -> int:
    """Delete finished items whose results were read."""
    deleted = 0
    for start in range(0, len(item_ids), ID_CHUNK):
        result = connection.execute(
            sa.delete(WORK_ITEMS).where(
                WORK_ITEMS.c.id.in_(item_ids[start : start + ID_CHUNK]),
                WORK_ITEMS.c.status.in_([WorkStatus.DONE.value, WorkStatus.FAILED.value]),
            )
        )
        deleted += result.rowcount
    return deleted


def fail(
    connection: sa.Connection, worker: str, item_ids: Sequence[int], error: str, *, now: float
) -> Settled:
    """Mark items failed for good (a permanent error); only those still claimed by `worker` are."""
    values = {"status": WorkStatus.FAILED.value, "completed_at": now, "last_error": error}
    return _settle(connection, worker, item_ids, values)


def _still_held(connection: sa.Connection, worker: str, item_ids: Sequence[int]) -> set[int]:
    held: set[int] = set()
    for start in range(0, len(item_ids), ID_CHUNK):
        query = sa.select(WORK_ITEMS.c.id).where(
            WORK_ITEMS.c.id.in_(item_ids[start : start + ID_CHUNK]),
            WORK_ITEMS.c.claimed_by == worker,
            WORK_ITEMS.c.status == WorkStatus.CLAIMED.value,
        )
        if connection.dialect.name == "postgresql":
            query = query.with_for_update()
        held.update(connection.execute(query).scalars())
    return held


def retry(connection: sa.Connection, worker: str, requests: Sequence[RetryRequest], *, now: float) -> Settled:
    """Put items back in the queue, each due after its own delay, in one batched UPDATE."""
    held = _still_held(connection, worker, [request.item_id for request in requests])
    rows = [
        {"item_id": request.item_id, "due": now + request.delay, "error": request.error}
        for request in requests
        if request.item_id in held
    ]
    if rows:
        connection.execute(
            sa.update(WORK_ITEMS)
            .where(WORK_ITEMS.c.id == sa.bindparam("item_id"))
            .values(
                status=WorkStatus.READY.value,
                claimed_by=None,
                claimed_at=None,
                next_attempt_at=sa.bindparam("due"),
                last_error=sa.bindparam("error"),
            ),
            rows,
        )
    asked = {request.item_id for request in requests}
    return Settled(settled=tuple(sorted(held)), not_held=tuple(sorted(asked - held)))


@dataclass(frozen=True)
class Purged:
    """How many finished rows a purge removed."""

    work_items: int


def purge_finished(connection: sa.Connection, *, finished_before: float) -> Purged:
    """Delete work items that finished (done or failed) before `finished_before`."""
    result = connection.execute(
        sa.delete(WORK_ITEMS).where(
            WORK_ITEMS.c.status.in_([WorkStatus.DONE.value, WorkStatus.FAILED.value]),
            WORK_ITEMS.c.completed_at < finished_before,
        )
    )
    return Purged(work_items=result.rowcount)


@dataclass(frozen=True)
class QueueCounts:
    """How many items are in each status."""

    by_status: dict[str, int]


def count_by_status(connection: sa.Connection) -> QueueCounts:
    """How many items are in each status."""
    rows = connection.execute(sa.select(WORK_ITEMS.c.status, sa.func.count()).group_by(WORK_ITEMS.c.status))
    return QueueCounts({status: count for status, count in rows})
