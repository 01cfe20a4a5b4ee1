"""Retry requests: asks to retry a stack's FAILED resources now, carried to its shard's holder.

Whoever asks (`reconciler retry`, on any host) writes a row naming the stack, optionally one
resource, and the stack's shard; the engine holding that shard reads the rows of its shards on
its passes, acts on them and deletes them. A request for a stack nobody converges waits until
someone takes its shard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from state.models import RETRY_REQUESTS


@dataclass(frozen=True)
class RequestedRetry:
    """One ask: retry `resource` of `stack` (None: every FAILED resource of it) now."""

    id: int
    stack: str
    resource: str | None
    shard: int
    requested_at: float


def request_retry(
    connection: sa.Connection, stack: str, resource: str | None, *, shard: int, now: float
) -> int:
    """Record the ask; its id."""
    inserted = connection.execute(
        sa.insert(RETRY_REQUESTS)
        .values(stack=stack, resource=resource, shard=shard, requested_at=now)
        .returning(RETRY_REQUESTS.c.id)
    )
    return int(inserted.scalar_one())


def requested_retries(connection: sa.Connection, shards: Sequence[int]) -> list[RequestedRetry]:
    """The asks waiting on `shards`, oldest first."""
    table = RETRY_REQUESTS
    rows = connection.execute(
        sa.select(table.c.id, table.c.stack, table.c.resource, table.c.shard, table.c.requested_at)
        .where(table.c.shard.in_(list(shards)))
        .order_by(table.c.id)
    )
    return [RequestedRetry(int(i), str(s), r, int(shard), float(at)) for i, s, r, shard, at in rows]


def forget_retries(connection: sa.Connection, ids: Sequence[int]) -> None:
    """The asks acted on."""
    connection.execute(sa.delete(RETRY_REQUESTS).where(RETRY_REQUESTS.c.id.in_(list(ids))))
