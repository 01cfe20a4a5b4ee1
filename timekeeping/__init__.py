"""The clock and the sleeper every layer reads time through, and the real ones production hands in.

Imports nothing of the project, so providers, state and the reconciler may all take the same
injected clock: tests step one `timekeeping.testing.SteppedClock` for the whole system instead of
sleeping, and nothing below the composition root calls `time.time()` or `time.sleep()` on its own.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol, runtime_checkable


class Clock(Protocol):
    """Tells the time in seconds since the Unix epoch."""

    def now(self) -> float: ...


class Sleeper(Protocol):
    """Waits; a stepped clock's sleep advances it instead, so tests never wait for real time."""

    def sleep(self, seconds: float) -> None: ...


@runtime_checkable
class InterruptibleSleeper(Protocol):
    """A sleeper whose sleep another thread can cut short by setting an event."""

    def sleep_unless(self, rung: threading.Event, seconds: float) -> bool:
        """Sleep `seconds`, or less when `rung` is or gets set; whether it was."""
        ...


class SystemClock:
    """The wall clock and a real sleep, for production."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def sleep_unless(self, rung: threading.Event, seconds: float) -> bool:
        return rung.wait(seconds)


__all__ = ["Clock", "InterruptibleSleeper", "Sleeper", "SystemClock"]
