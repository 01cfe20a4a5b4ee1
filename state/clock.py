"""The clock every time read in `state/` goes through.

Any object with `now() -> float` (seconds since the Unix epoch) will do: the project's stepped test
clock serves every layer by structural typing, so nothing here sleeps or calls `time.time()` on its
own. The one real clock lives here so that production wiring has a default to hand in.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Tells the time in seconds since the Unix epoch."""

    def now(self) -> float: ...


class Sleeper(Protocol):
    """Waits; injected so tests step time instead of sleeping."""

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The wall clock and a real sleep, for production."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)
