"""The one loop that drives the engine: `reconciler apply`, the daemon and the benchmarks run it alike.

A turn is one pass, then a wait outside any lock: until a call comes back or the next deadline the
pass reported, whichever is first (`Engine.wait`). The pass is `Engine.step`, or the daemon's
pass around it, which takes the daemon's lock only to step and to report what changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from reconciler.engine.progress import Progress
from timekeeping import Clock


class Waits(Protocol):
    """What the loop needs of the engine between passes."""

    def wait(self, progress: Progress, until: float) -> None: ...


class EngineLoop:
    """Passes of `run_pass`, each followed by the engine's wait for what the pass left under way."""

    def __init__(self, engine: Waits, clock: Clock, run_pass: Callable[[], Progress]) -> None:
        self._engine = engine
        self._clock = clock
        self._run_pass = run_pass

    def turn(self, until: float) -> Progress:
        """One pass, then the wait for what it left under way, until `until` at the latest."""
        progress = self._run_pass()
        self._engine.wait(progress, until)
        return progress

    def run_until(self, done: Callable[[Progress], bool], deadline: float) -> Progress:
        """Turns until `done(progress)` after a pass, `deadline`, or nothing left that could move."""
        while True:
            progress = self._run_pass()
            if done(progress):
                return progress
            if self._clock.now() >= deadline or (not progress.busy and progress.next_wake is None):
                return progress  # out of time, or nothing left that could move
            self._engine.wait(progress, deadline)
