"""One balancing step of a worker, in one transaction: heartbeat, renew, hand back surplus, take its share.

A surplus shard with cloud calls still out (`busy`) is not handed back yet: it stays renewed and is
reported as draining, so its worker starts nothing more on it while the calls come back, and the
next holder, which adopts what the cloud made by marker, starts only after the cloud has acted on
them. It is handed back at the first step that finds it idle.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import sqlalchemy as sa

from state.balancing import fair_share, surplus_to_release
from state.lease_results import Acquired, Released
from state.lease_settings import LeaseSettings
from state.leases import free_or_expired_shards, next_expiry_of_others, release_many, renew_all, take_shards
from state.workers import Heartbeat, WorkerIdentity, heartbeat, live_workers


@dataclass(frozen=True)
class Balanced:
    """What a balancing step left the worker with, and what changed."""

    heartbeat: Heartbeat
    share: int
    live_workers: int
    held: tuple[Acquired, ...]
    taken: tuple[Acquired, ...]
    released: tuple[Released, ...]
    others_next_expiry: float | None = None  # when the soonest lease held by another worker expires
    draining: tuple[int, ...] = ()  # surplus shards kept (and renewed) until their calls are back

    @property
    def under_share(self) -> bool:
        """The worker holds fewer shards than its fair share."""
        return len(self.held) < self.share


def balance(
    connection: sa.Connection,
    worker: WorkerIdentity,
    settings: LeaseSettings,
    *,
    now: float,
    busy: Collection[int] = (),
) -> Balanced:
    """Renew what the worker holds and move it towards its fair share of the shards, handing back
    no shard of `busy` (those with calls out): they drain first."""
    beat = heartbeat(connection, worker, now=now)
    live = [alive.id for alive in live_workers(connection, now=now, dead_after=settings.dead_after)]
    share = fair_share(worker.id, live, settings.shard_count)
    renewed = renew_all(connection, worker.id, now=now, lease_seconds=settings.lease_seconds)
    surplus = set(surplus_to_release([held.shard for held in renewed], share))
    draining = surplus & set(busy)
    released = release_many(
        connection,
        worker.id,
        {held.shard: held.epoch for held in renewed if held.shard in surplus - draining},
        now=now,
    )
    kept = [held for held in renewed if held.shard not in surplus or held.shard in draining]
    taken: list[Acquired] = []
    if len(kept) < share:
        candidates = [
            shard for shard in free_or_expired_shards(connection, now=now) if shard < settings.shard_count
        ]
        taken = take_shards(
            connection,
            worker.id,
            candidates,
            now=now,
            lease_seconds=settings.lease_seconds,
            limit=share - len(kept),
        )
    held = tuple(sorted([*kept, *taken], key=lambda lease: lease.shard))
    others_next_expiry = next_expiry_of_others(connection, worker.id, now=now)
    return Balanced(
        beat,
        share,
        len(set(live) | {worker.id}),
        held,
        tuple(taken),
        tuple(released),
        others_next_expiry,
        tuple(sorted(draining)),
    )
