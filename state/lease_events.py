"""The journal's account of a worker's leases: takeovers, lost leases and hand-overs, one line each.

A hang after a crash shows first as a lease nobody took or a shard handed back and never picked up;
these lines say which worker took, lost or handed back which shard, and from whom.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping

from state.balance_step import Balanced

LOG = logging.getLogger("state.leases")


def log_lease_changes(
    worker: str, before: Mapping[int, int], draining_before: Collection[int], balanced: Balanced
) -> None:
    """Log what one balancing step changed: `before`, the shards held before it (shard -> epoch), of
    which `draining_before` were waiting to be handed back."""
    acquired = []
    for lease in balanced.taken:
        if lease.taken_from is not None and lease.taken_from != worker:
            LOG.warning(
                "takeover: worker %s took shard %d over from worker %s (its lease expired), epoch %d",
                worker,
                lease.shard,
                lease.taken_from,
                lease.epoch,
            )
        else:
            acquired.append(lease.shard)
    if acquired:  # free shards, as at a fleet's first start: one line, not one per shard
        shards = ", ".join(str(shard) for shard in sorted(acquired))
        LOG.info("shard acquired: worker %s holds shard %s", worker, shards)
    released = {item.shard for item in balanced.released}
    for shard in sorted(released):
        LOG.info(
            "hand-over: worker %s handed shard %d back (fair share %d of %d live workers)",
            worker,
            shard,
            balanced.share,
            balanced.live_workers,
        )
    held = {lease.shard for lease in balanced.held}
    for shard, epoch in sorted(before.items()):
        if shard not in held and shard not in released:
            LOG.warning(
                "lease lost: worker %s no longer holds shard %d (epoch %d): expired or taken over",
                worker,
                shard,
                epoch,
            )
    for shard in balanced.draining:
        if shard in draining_before:
            continue
        LOG.info("hand-over deferred: worker %s keeps shard %d until its calls out are back", worker, shard)
