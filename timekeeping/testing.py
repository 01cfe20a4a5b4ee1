"""A clock tests step by hand, shipped with the product so every layer's tests and the benchmarks share it.

Time moves only when a test calls `advance` or the code under test calls `sleep`. One instance
serves as the clock and the sleeper of a whole scenario (store, engine, simulated cloud), and a
thread that plays a slow cloud call can `wait` until the others have stepped time past its end.
"""

from __future__ import annotations

import threading

DEFAULT_START = 1_800_000_000.0


class SteppedClock:
    """Starts at `start` (seconds since the epoch) and moves only when told to; safe across threads."""

    def __init__(self, start: float = DEFAULT_START) -> None:
        self._at = start
        self._released = False
        self._moved = threading.Condition()
        self.slept: list[float] = []

    def now(self) -> float:
        return self._at

    def advance(self, seconds: float) -> None:
        """Moves time on by `seconds`, as a test does between its steps."""
        with self._moved:
            self._at += seconds
            self._moved.notify_all()

    def sleep(self, seconds: float) -> None:
        """Records the sleep asked for and moves time on by it, at once."""
        with self._moved:
            self.slept.append(seconds)
            self._at += max(0.0, seconds)
            self._moved.notify_all()

    def sleep_unless(self, rung: threading.Event, seconds: float) -> bool:
        """Returns at once when `rung` is set; else sleeps as `sleep` does (moving time on)."""
        if rung.is_set():
            return True
        self.sleep(seconds)
        return rung.is_set()

    def wait(self, seconds: float) -> None:
        """Blocks the calling thread until others have moved time `seconds` on, or `release` was called."""
        with self._moved:
            end = self._at + seconds
            self._moved.wait_for(lambda: self._at >= end or self._released)

    def release(self) -> None:
        """Ends every `wait`, now and later: the scenario is over and nothing should block any more."""
        with self._moved:
            self._released = True
            self._moved.notify_all()


__all__ = ["DEFAULT_START", "SteppedClock"]
