"""What one engine pass says about itself: whether work is under way, and when to run again."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    in_flight: int  # provider calls running on the pool
    busy: bool  # something can move as soon as a call comes back
    next_wake: float | None  # the earliest retry, poll, observation or deadline (None: nothing due)
