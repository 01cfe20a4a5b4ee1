"""Whether the daemon's loops are making progress, which is what the systemd watchdog is fed on.

Each loop (fetch, engine steps, lease renewal, note pushes) reports `made_progress(loop)` when a
pass completes. `WATCHDOG=1` is sent only while every loop has done so within its allowance: a loop
wedged on a lock or a hung call stops the pings, and systemd restarts the service.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

from timekeeping import Clock


@dataclass(frozen=True)
class Healthy:
    """Every loop completed a pass within its allowance."""


@dataclass(frozen=True)
class Stalled:
    """These loops have not completed a pass in time (name -> seconds since the last one)."""

    loops: Mapping[str, float]


Health = Healthy | Stalled


class ProgressMonitor:
    """Last completed pass per loop, against an allowance per loop (thread-safe)."""

    def __init__(self, clock: Clock, allowances: Mapping[str, float]) -> None:
        self.clock = clock
        self.allowances = dict(allowances)
        started = clock.now()
        self._last: dict[str, float] = dict.fromkeys(allowances, started)
        self._lock = threading.Lock()

    def made_progress(self, loop: str) -> None:
        with self._lock:
            self._last[loop] = self.clock.now()

    def health(self) -> Health:
        now = self.clock.now()
        with self._lock:
            late = {
                loop: now - last
                for loop, last in self._last.items()
                if now - last > self.allowances.get(loop, float("inf"))
            }
        return Stalled(late) if late else Healthy()
