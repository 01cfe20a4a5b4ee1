"""Lease timing: defaults in the range the Kubernetes world uses, all configurable."""

from __future__ import annotations

from dataclasses import dataclass

from state.sharding import DEFAULT_SHARD_COUNT


@dataclass(frozen=True)
class LeaseSettings:
    """How many shards there are, how long a lease lasts and how often it is renewed.

    `worker_timeout` is how long a worker may go without a heartbeat before it counts as dead (its
    claimed work items are then reclaimed); it defaults to the lease duration.
    `safety_margin` is how long before its lease could expire a worker stops acting on a shard, to
    cover clock skew between hosts and the time a write takes.
    """

    shard_count: int = DEFAULT_SHARD_COUNT
    lease_seconds: float = 15.0
    renew_seconds: float = 5.0
    worker_timeout: float | None = None
    safety_margin: float = 1.0

    def __post_init__(self) -> None:
        if self.shard_count < 1:
            raise ValueError(f"shard_count must be at least 1, got {self.shard_count}")
        if not 0 < self.renew_seconds < self.lease_seconds:
            raise ValueError(
                f"renew period ({self.renew_seconds} s) must be positive and shorter than the lease "
                f"({self.lease_seconds} s)"
            )
        if not 0 <= self.safety_margin < self.lease_seconds - self.renew_seconds:
            raise ValueError(
                f"safety margin ({self.safety_margin} s) must leave room for a renewal within the lease"
            )

    @property
    def dead_after(self) -> float:
        """Seconds without a heartbeat after which a worker is dead."""
        return self.lease_seconds if self.worker_timeout is None else self.worker_timeout
