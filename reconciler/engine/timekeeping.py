"""The clock and sleeper the engine reads time from; injected, so tests step time instead of sleeping."""

from __future__ import annotations

from typing import Protocol


class Clock(Protocol):
    """Seconds since the Unix epoch; the same stepped clock serves every layer in tests."""

    def now(self) -> float: ...


class Sleeper(Protocol):
    """Waits between passes when nothing is in flight; a test sleeper advances its clock instead."""

    def sleep(self, seconds: float) -> None: ...


class RandomSource(Protocol):
    """Jitter for backoff and tokens for native resources' markers (`random.Random` fits)."""

    def random(self) -> float: ...

    def getrandbits(self, k: int, /) -> int: ...
