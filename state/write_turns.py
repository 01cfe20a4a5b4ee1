"""Turns at SQLite's one write lock for the writing transactions of one process.

SQLite's own wait for its write lock polls in sleeps of up to 100 ms, so a writer that found it
taken keeps missing it while others take it in between: a batch of agents' signals queued behind
thousands of the engine's one-row writes for seconds, and every agent waits on its signal's answer
before running its next script. Here writers of this process wait for their turn on a condition
instead, and are handed it the moment it is free; writers of other processes still meet at
SQLite's lock.

An urgent writer (a batch somebody is waiting on the answer of) goes before the others waiting,
but turns alternate while both kinds wait: after an urgent turn, one other writer goes first, so
neither kind starves the other.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class WriteTurns:
    """One writer at a time; urgent writers first, alternating with the others while both wait."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._urgent = threading.Condition(self._lock)
        self._other = threading.Condition(self._lock)
        self._busy = False
        self._last_was_urgent = False
        self._waiting = {True: 0, False: 0}

    @contextmanager
    def turn(self, *, urgent: bool, patience: float) -> Iterator[None]:
        """The block runs in this writer's turn; after `patience` s of waiting it runs without one
        (SQLite's own lock then decides, as it would have)."""
        taken = self._take(urgent, patience)
        try:
            yield
        finally:
            if taken:
                with self._lock:
                    self._busy = False
                    self._last_was_urgent = urgent
                    self._hand_on()

    def _may_take(self, urgent: bool) -> bool:
        if self._busy:
            return False
        others_waiting = self._waiting[not urgent] > 0
        # urgent writers go first, except right after an urgent turn while others wait
        return not others_waiting or urgent != self._last_was_urgent

    def _take(self, urgent: bool, patience: float) -> bool:
        deadline = time.monotonic() + patience
        condition = self._urgent if urgent else self._other
        with self._lock:
            self._waiting[urgent] += 1
            try:
                while not self._may_take(urgent):
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        self._hand_on()  # a hand-over meant for this writer goes to another
                        return False
                    condition.wait(remaining)
                self._busy = True
                return True
            finally:
                self._waiting[urgent] -= 1

    def _hand_on(self) -> None:
        """Wake the writer whose turn it is next (the lock held)."""
        if self._busy:
            return
        urgent_next = self._waiting[True] > 0 and (self._waiting[False] == 0 or not self._last_was_urgent)
        if urgent_next:
            self._urgent.notify()
        elif self._waiting[False]:
            self._other.notify()
