"""Autoscaling's rows: scaling policy signals and the runtime sizes of scaling groups.

A signal is a fact any daemon of a fleet may receive (an alarm POSTs to whichever daemon it
reaches): it is written unfenced, keyed so that a repeat of it (the same request retried, the
same alarm notification delivered twice) is kept once, and the holder of the policy's shard acts
on it at its next pass. A group's size, once a policy moved it, is the running system's fact,
written by that holder only, fenced by its lease like every record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from state.fencing import Fence, check_fence
from state.scaling_tables import GROUP_SIZES, SCALING_SIGNALS
from state.sharding import shard_for
from state.signal_notices import announce_scaling_signal
from state.transactions import Transactor
from state.upserts import dialect_insert
from timekeeping import Clock

REPEAT_WINDOW = 3600.0  # how long a signal acted on is remembered, so a late repeat changes nothing
ONCE_ACTED = "body:"  # keys of signals without a request id: a repeat only while it waits


@dataclass(frozen=True)
class ScalingSignal:
    """A signal waiting for the holder of its policy's shard."""

    id: int
    policy: str
    stack: str
    resource: str
    received_at: float


@dataclass(frozen=True)
class GroupSize:
    """A group's runtime size, the bounds git declared when it was set, and its cooldown's end."""

    size: int
    bounds: Mapping[str, Any]
    cooldown_end: float = 0.0


class ScalingStore:
    """Every operation one transaction, retried through the store's `Transactor`."""

    def __init__(self, transactor: Transactor, clock: Clock, shard_count: int) -> None:
        self._tx = transactor
        self._clock = clock
        self._shard_count = shard_count

    def record_signal(self, policy: str, stack: str, resource: str, signal_key: str) -> bool:
        """Keep a signal for `policy` (of `resource` in `stack`); False when it repeats one kept."""

        def work(connection: sa.Connection) -> bool:
            shard = shard_for(stack, self._shard_count)
            insert = dialect_insert(connection, SCALING_SIGNALS).values(
                policy=policy,
                stack=stack,
                resource=resource,
                shard=shard,
                signal_key=signal_key,
                received_at=self._clock.now(),
                acted_at=None,
            )
            result = connection.execute(
                insert.on_conflict_do_nothing(index_elements=["policy", "signal_key"])
            )
            if result.rowcount:
                announce_scaling_signal(connection, shard)
            return bool(result.rowcount)

        return self._tx.run("record scaling signal", work)

    def waiting_signals(self, shards: Sequence[int]) -> list[ScalingSignal]:
        """The signals not acted on yet, of `shards`, oldest first."""
        if not shards:
            return []
        table = SCALING_SIGNALS
        query = (
            sa.select(table.c.id, table.c.policy, table.c.stack, table.c.resource, table.c.received_at)
            .where(table.c.shard.in_(list(shards)), table.c.acted_at.is_(None))
            .order_by(table.c.id)
        )

        def work(connection: sa.Connection) -> list[ScalingSignal]:
            return [ScalingSignal(int(i), p, s, r, float(at)) for i, p, s, r, at in connection.execute(query)]

        return self._tx.read("waiting scaling signals", work)

    def signals_acted_on(self, ids: Sequence[int]) -> None:
        """The signals were acted on: forgotten, but for those a request id names (a repeat window)."""
        if not ids:
            return
        table = SCALING_SIGNALS
        now = self._clock.now()

        def work(connection: sa.Connection) -> None:
            chosen = table.c.id.in_(list(ids))
            connection.execute(sa.delete(table).where(chosen, table.c.signal_key.startswith(ONCE_ACTED)))
            connection.execute(sa.update(table).where(chosen).values(acted_at=now))
            connection.execute(sa.delete(table).where(table.c.acted_at < now - REPEAT_WINDOW))

        self._tx.run("scaling signals acted on", work)

    def group_sizes(self, stack: str) -> dict[str, GroupSize]:
        """The runtime sizes of `stack`'s groups, by resource name."""
        table = GROUP_SIZES
        query = sa.select(table.c.resource, table.c.size, table.c.bounds, table.c.cooldown_end).where(
            table.c.stack == stack
        )

        def work(connection: sa.Connection) -> dict[str, GroupSize]:
            return {
                str(name): GroupSize(int(size), dict(bounds or {}), float(end))
                for name, size, bounds, end in connection.execute(query)
            }

        return self._tx.read("group sizes", work)

    def put_group_size(self, stack: str, resource: str, size: GroupSize, *, fence: Fence) -> None:
        """Set a group's runtime size, under the lease of its stack's shard."""

        def work(connection: sa.Connection) -> None:
            now = self._clock.now()
            check_fence(connection, fence, now=now)
            values = {
                "size": size.size,
                "bounds": dict(size.bounds),
                "cooldown_end": size.cooldown_end,
                "updated_at": now,
            }
            insert = dialect_insert(connection, GROUP_SIZES).values(stack=stack, resource=resource, **values)
            connection.execute(
                insert.on_conflict_do_update(index_elements=["stack", "resource"], set_=values)
            )

        self._tx.run("put group size", work)

    def forget_group_size(self, stack: str, resource: str, *, fence: Fence) -> None:
        """A commit set the group's size again (or the group went): its runtime size is over."""

        def work(connection: sa.Connection) -> None:
            check_fence(connection, fence, now=self._clock.now())
            table = GROUP_SIZES
            connection.execute(sa.delete(table).where(table.c.stack == stack, table.c.resource == resource))

        self._tx.run("forget group size", work)
