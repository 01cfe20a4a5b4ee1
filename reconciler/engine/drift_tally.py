"""Drift repairs of one stack of the repository, its nested stacks' included.

One tally is shared by a root stack's run and the runs of every stack nested under it, so the
root's report says how many drifted resources its whole tree had repaired, and which last.
"""

from __future__ import annotations

from collections import deque

RECENT_REPAIRS = 10


class DriftTally:
    """How many drifted resources were repaired, and the newest of them (stack-qualified names)."""

    def __init__(self) -> None:
        self.repairs = 0
        self.recent: deque[str] = deque(maxlen=RECENT_REPAIRS)

    def repaired(self, what: str) -> None:
        self.repairs += 1
        self.recent.append(what)
