"""A clock tests step by hand: `now()` for the store, `sleep()` that only advances it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SteppedClock:
    """Starts at `start` (seconds since the epoch) and moves only when told to."""

    start: float = 1_800_000_000.0
    slept: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._now = self.start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self._now += seconds
