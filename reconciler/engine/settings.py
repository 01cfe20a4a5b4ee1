"""The engine's tunables: pool size, deadlines, retry and replacement bounds, readiness polling."""

from __future__ import annotations

from dataclasses import dataclass, field

from reconciler.engine.backoff import Backoff


@dataclass(frozen=True)
class EngineSettings:
    """Defaults suit a real cloud; tests and benchmarks shorten them."""

    pool_size: int = 32  # threads calling providers at once
    in_flight_per_thread: int = 4  # cloud calls decided per thread before planning waits
    sent_per_thread: int = 2  # of those, handed to the pool at once (the rest wait in the engine)
    call_deadline: float = 300.0  # a provider call not back by then is abandoned and retried
    ready_deadline: float = 900.0  # an asynchronous resource not READY by then is replaced
    readiness_poll: float = 1.0  # how often resources in progress are observed, batched per type
    # The slowest pace for resources waiting on a signal (`ResourceType.signalled`) while none is
    # told: what a signal kept by another daemon of a fleet may wait before this one sees it.
    signal_poll: float = 5.0
    nested_poll: float = 0.5  # how often nested stacks on other workers are looked at and found
    max_sleep: float = 1.0  # the longest wait between passes (leases are renewed at each pass)
    store_retry: float = 1.0  # after the database went away mid-pass, when the next pass tries again
    # A create back while its resource still builds is written with the resource's next change, or
    # this long after at the latest: a crash meanwhile loses only the physical id, found again by
    # the resource's marker (the intent record, written before the call, holds the marker).
    building_write_delay: float = 5.0
    max_attempts: int = 12  # retryable failures of one action before the resource is FAILED
    max_replacements: int = 3  # replacements of a failing resource before the stack is FAILED
    backoff: Backoff = field(default_factory=Backoff)
    # A resource FAILED for a permanent cause (403, quota, bad request) is tried again this slowly.
    failed_backoff: Backoff = field(
        default_factory=lambda: Backoff(base=120.0, factor=2.0, cap=3600.0, jitter=0.1)
    )
    retry_poll: float = 1.0  # how often the retry requests of the shards held are read
    scaling_poll: float = 0.2  # how often scaling policies' signals are read (stacks with a policy only)

    @property
    def in_flight_limit(self) -> int:
        return self.pool_size * self.in_flight_per_thread

    @property
    def sent_limit(self) -> int:
        return self.pool_size * self.sent_per_thread
