"""A clock tests advance by hand: any layer's `now() -> float` Protocol accepts it."""

from __future__ import annotations


class SteppedClock:
    def __init__(self, start: float = 1_000_000.0) -> None:
        self.current = start

    def now(self) -> float:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += seconds
