"""Fair shares: how many shards each live worker should hold.

Workers are ranked by id, so every worker computes the same split from the same list: the first
`shard_count % n` get one more than the rest. A worker over its share hands the surplus back; a
worker under it takes free or expired shards. When a worker joins, the others see it at their next
renewal and release their surplus; it takes those at its own next renewal: within two renew periods.
"""

from __future__ import annotations

from collections.abc import Sequence


def fair_share(worker: str, live_workers: Sequence[str], shard_count: int) -> int:
    """The number of shards `worker` should hold among `live_workers` (itself counted even if missing)."""
    ranked = sorted(set(live_workers) | {worker})
    base, extra = divmod(shard_count, len(ranked))
    return base + (1 if ranked.index(worker) < extra else 0)


def surplus_to_release(held: Sequence[int], share: int) -> list[int]:
    """Which held shards to hand back to come down to `share`: the highest-numbered ones."""
    return sorted(held)[share:] if len(held) > share else []
