"""What status outputs read of resource records: names, types, ids and status, never the values.

The status page lists a stack's resources a page at a time and `/metrics` counts resources by
status on the shards a worker holds; neither needs the properties or attributes (which may hold
hidden values), so these reads select only the columns they show and let the database count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from state.models import RESOURCE_RECORDS as RECORDS
from state.models import STACKS


@dataclass(frozen=True)
class ResourceSummary:
    """One resource record as an operator reads it."""

    logical_name: str
    type: str
    physical_id: str | None
    status: str
    last_error: str | None
    replaced_by: int | None


@dataclass(frozen=True)
class ResourcePage:
    """Some of a stack's resources (ordered by name) and how many it has in all."""

    resources: tuple[ResourceSummary, ...]
    total: int


def resource_page(connection: sa.Connection, stack: str, offset: int, limit: int) -> ResourcePage:
    """The stack's resources from `offset` (by logical name, then record id), at most `limit`."""
    total = connection.execute(
        sa.select(sa.func.count()).select_from(RECORDS).where(RECORDS.c.stack == stack)
    ).scalar_one()
    rows = connection.execute(
        sa.select(
            RECORDS.c.logical_name,
            RECORDS.c.type,
            RECORDS.c.physical_id,
            RECORDS.c.status,
            RECORDS.c.last_error,
            RECORDS.c.replaced_by,
        )
        .where(RECORDS.c.stack == stack)
        .order_by(RECORDS.c.logical_name, RECORDS.c.id)
        .offset(offset)
        .limit(limit)
    )
    return ResourcePage(tuple(ResourceSummary(*row) for row in rows), int(total))


def resources_by_status(connection: sa.Connection, shards: Sequence[int], shard_count: int) -> dict[str, int]:
    """How many records the stacks on `shards` (nested stacks included) have in each status.

    Grouped by stack and status, the order of the (stack, status) index, so the database counts
    from the index alone without sorting. A worker holding every shard (the one daemon of a host)
    counts the whole table; one holding some reaches its stacks through their shard.
    """
    query = sa.select(RECORDS.c.status, sa.func.count()).group_by(RECORDS.c.stack, RECORDS.c.status)
    if len(set(shards)) < shard_count:
        query = query.select_from(RECORDS.join(STACKS, STACKS.c.name == RECORDS.c.stack)).where(
            STACKS.c.shard.in_(list(shards))
        )
    counted: dict[str, int] = {}
    for status, count in connection.execute(query):
        counted[status] = counted.get(status, 0) + int(count)
    return counted
