"""One worker's view of the shards it may act on, kept safe through database outages.

`tick()` runs every renew period: a balancing step (heartbeat, renew, hand back surplus, take the
fair share) and a reap of dead workers. Each shard the step leaves in hand may be acted on until
its lease expiry (computed from the time the step *started*) minus the safety margin. When the
database cannot be reached, the tick reports `Paused` and keeps the old deadlines: shards then drop
out of `fences()` on their own before their leases can expire anywhere, so a partitioned or paused
worker stops starting cloud writes before another can take its shards over.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from state.balance_step import Balanced
from state.errors import CommitOutcomeUnknown, DatabaseUnavailable
from state.fencing import Fence
from state.lease_events import log_lease_changes
from state.store import Store
from state.workers import Reaped, WorkerIdentity
from timekeeping import Clock


@dataclass(frozen=True)
class Kept:
    """The tick reached the database: the shards in hand now, and what the step changed."""

    balanced: Balanced
    reaped: Reaped


@dataclass(frozen=True)
class Paused:
    """The database could not be reached; the shards still safe to act on, and why."""

    reason: str
    still_safe: tuple[int, ...]


TickOutcome = Kept | Paused


@dataclass(frozen=True)
class NotHeld:
    """The worker may not act on this shard (never held, handed back, lost, or too close to expiry)."""

    shard: int


@dataclass(frozen=True)
class _InHand:
    epoch: int
    act_until: float


class ShardKeeper:
    """Keeps a worker's leases and answers, at any moment, which shards it may act on and at which epoch."""

    def __init__(
        self,
        store: Store,
        worker: WorkerIdentity,
        *,
        clock: Clock,
        busy: Callable[[], Collection[int]] = tuple,
    ) -> None:
        """`busy`: the shards this worker still has cloud calls out on, asked at every tick; a shard
        it must hand back drains first (out of `fences()`, lease still renewed) while it is busy."""
        self._store = store
        self.worker = worker
        self._clock = clock
        self._busy = busy
        self._draining: tuple[int, ...] = ()
        self._held: dict[int, int] = {}  # every shard held at the last tick (draining ones too), by epoch
        self._in_hand: dict[int, _InHand] = {}
        self._next_tick_at = clock.now()

    def tick(self) -> TickOutcome:
        """One renew period's work: balance and reap. Never raises for a database outage."""
        margin = self._store.settings.safety_margin
        self._next_tick_at = self._clock.now() + self._store.settings.renew_seconds
        try:
            balanced = self._store.balance(self.worker, busy=frozenset(self._busy()))
        except (DatabaseUnavailable, CommitOutcomeUnknown) as error:
            return Paused(reason=str(error), still_safe=tuple(sorted(self.fences())))
        log_lease_changes(self.worker.id, self._held, self._draining, balanced)
        self._held = {lease.shard: lease.epoch for lease in balanced.held}
        self._draining = balanced.draining
        self._in_hand = {
            lease.shard: _InHand(lease.epoch, lease.until - margin)
            for lease in balanced.held
            if lease.shard not in balanced.draining
        }
        if balanced.others_next_expiry is not None:
            self._next_tick_at = min(self._next_tick_at, balanced.others_next_expiry)
        try:
            reaped = self._store.reap_dead_workers()
        except (DatabaseUnavailable, CommitOutcomeUnknown) as error:
            return Paused(reason=str(error), still_safe=tuple(sorted(self.fences())))
        return Kept(balanced=balanced, reaped=reaped)

    def next_tick_at(self) -> float:
        """When `tick()` should run next: one renew period after the last one began, or as soon as a
        lease held by another worker expires, if sooner. Live holders renew long before that, so the
        early tick only happens when a holder died, and its shards are taken within moments of
        their expiry instead of up to a renew period later."""
        return self._next_tick_at

    def draining(self) -> tuple[int, ...]:
        """Shards being handed back once their calls are back: held, but not to be acted on."""
        return self._draining

    def fences(self) -> dict[int, Fence]:
        """The shards the worker may act on right now, with the fence to write under."""
        now = self._clock.now()
        return {
            shard: Fence(shard, held.epoch) for shard, held in self._in_hand.items() if now < held.act_until
        }

    def fence_for(self, shard: int) -> Fence | NotHeld:
        """The fence for acting on `shard` now, or `NotHeld`."""
        held = self._in_hand.get(shard)
        if held is None or self._clock.now() >= held.act_until:
            return NotHeld(shard)
        return Fence(shard, held.epoch)

    def act_until(self, shard: int) -> float | None:
        """Until when the worker may act on `shard` (None when it may not at all)."""
        held = self._in_hand.get(shard)
        return None if held is None else held.act_until

    def stop(self) -> tuple[int, ...]:
        """Clean shutdown: stop acting, hand every shard back, deregister; returns the shards handed back."""
        self._in_hand = {}
        self._held = {}
        try:
            released = self._store.leave(self.worker.id)
        except (DatabaseUnavailable, CommitOutcomeUnknown):
            return ()
        return tuple(item.shard for item in released)
