"""Abandoning a stack (Heat's `stack abandon`): it stops being managed, and nothing in the cloud goes.

In one transaction the stack and its nested stacks (`NAME/...`) lose their resource records and are
marked ABANDONED, and every shard they live on is released at a new epoch: a worker converging one
of them is fenced out at once (its next write raises `StaleLease`), any worker may take the shard
again at its next tick, and whoever takes it reads the ABANDONED mark before rebuilding anything, so
no record comes back and nothing is created or deleted for them.
"""

from __future__ import annotations

import sqlalchemy as sa

from state.models import RESOURCE_RECORDS as RECORDS
from state.models import SHARD_LEASES as LEASES
from state.models import STACKS
from state.plan_memos import stamp_stacks
from state.stacks import StackStatus


def abandon_tree(connection: sa.Connection, stack: str, *, reason: str, now: float) -> list[str]:
    """Abandon `stack` and its nested stacks; their names, the stack first (empty: no such stack)."""
    in_tree = sa.or_(STACKS.c.name == stack, STACKS.c.name.startswith(f"{stack}/", autoescape=True))
    rows = connection.execute(sa.select(STACKS.c.name, STACKS.c.shard).where(in_tree)).all()
    if not rows:
        return []
    names = sorted((str(name) for name, _ in rows), key=lambda name: (name != stack, name))
    shards = sorted({int(shard) for _, shard in rows})
    connection.execute(
        sa.update(LEASES)
        .where(LEASES.c.shard.in_(shards))
        .values(epoch=LEASES.c.epoch + 1, owner=None, expires_at=0.0)
    )
    connection.execute(sa.delete(RECORDS).where(RECORDS.c.stack.in_(names)))
    stamp_stacks(connection, names)
    connection.execute(
        sa.update(STACKS)
        .where(STACKS.c.name.in_(names))
        .values(status=StackStatus.ABANDONED.value, status_reasons=[reason], updated_at=now)
    )
    return names


def end_abandonment(connection: sa.Connection, stack: str, *, reason: str, now: float) -> None:
    """`stack` (and its nested stacks) adopted again: no longer ABANDONED, managed from now on."""
    in_tree = sa.or_(STACKS.c.name == stack, STACKS.c.name.startswith(f"{stack}/", autoescape=True))
    connection.execute(
        sa.update(STACKS)
        .where(in_tree, STACKS.c.status == StackStatus.ABANDONED.value)
        .values(status=StackStatus.PENDING.value, status_reasons=[reason], updated_at=now)
    )
