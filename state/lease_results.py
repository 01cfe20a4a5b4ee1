"""Named results of lease operations: what happened, never a bare bool or id."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Acquired:
    """The caller holds the shard at `epoch` until `until` (by the clock that made the call)."""

    shard: int
    epoch: int
    until: float
    # the worker whose expired lease this one took over (None: it was free); for the journal only
    taken_from: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class HeldBy:
    """Another worker holds the shard until `until`."""

    shard: int
    worker: str
    until: float


@dataclass(frozen=True)
class Lost:
    """The caller's lease on the shard is gone (expired, taken over, or never held at that epoch)."""

    shard: int


@dataclass(frozen=True)
class Released:
    """The caller gave the shard back; anyone may acquire it now."""

    shard: int


AcquireResult = Acquired | HeldBy
RenewResult = Acquired | Lost
ReleaseResult = Released | Lost


@dataclass(frozen=True)
class HeldShard:
    """A shard a worker holds, as the database records it."""

    shard: int
    epoch: int
    expires_at: float
