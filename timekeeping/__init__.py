"""The clock and the sleeper every layer reads time through, and the real ones production hands in.

Imports nothing of the project, so providers, state and the reconciler may all take the same
injected clock: tests step one `timekeeping.testing.SteppedClock` for the whole system instead of
sleeping, and nothing below the composition root calls `time.time()` or `time.sleep()` on its own.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Tells the time in seconds since the Unix epoch."""

    def now(self) -> float: ...


class Sleeper(Protocol):
    """Waits; a stepped clock's sleep advances it instead, so tests never wait for real time."""

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The wall clock and a real sleep, for production."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


__all__ = ["Clock", "Sleeper", "SystemClock"]
