"""A clock tests step by hand, and a sleep that only advances it: no test waits for real time."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SteppedClock:
    now: float = 1_700_000_000.0
    slept: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
