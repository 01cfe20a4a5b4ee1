"""What status outputs read of resource records: names, types, ids and status, never the values.

The status page lists a stack's resources a page at a time and `/metrics` counts resources by
status for every stack a worker runs; neither needs the properties or attributes (which may hold
hidden values), so these reads select only the columns they show and let the database count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from state.models import RESOURCE_RECORDS as RECORDS

_IN_CHUNK = 500


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


def resources_by_status(connection: sa.Connection, stacks: Sequence[str]) -> dict[str, int]:
    """How many records the named stacks have in each status (counted by the database)."""
    counted: dict[str, int] = {}
    names = list(stacks)
    for start in range(0, len(names), _IN_CHUNK):
        rows = connection.execute(
            sa.select(RECORDS.c.status, sa.func.count())
            .where(RECORDS.c.stack.in_(names[start : start + _IN_CHUNK]))
            .group_by(RECORDS.c.status)
        )
        for status, count in rows:
            counted[status] = counted.get(status, 0) + int(count)
    return counted
