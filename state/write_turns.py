"""Turns at SQLite's one write lock for the writing transactions of one process.

SQLite's own wait for its write lock polls in sleeps of up to 100 ms, so a writer that found it
taken keeps missing it while others take it in between: a batch of agents' signals queued behind
thousands of the engine's one-row writes for seconds, and every agent waits on its signal's answer
before running its next script. Here writers of this process wait for their turn on a condition
instead, and are handed it the moment it is free; writers of other processes still meet at
SQLite's lock.

An urgent writer (a batch somebody is waiting on the answer of) goes before the others waiting,
but turns alternate while both kinds wait: after an urgent turn, one other writer goes first, so
neither kind starves the other. Within a kind, turns go in the order writers asked: a turn
is handed to the writer waiting longest, never taken by one that came since: a batch writer
looping back for its next batch while the woken writer still waits for the interpreter lock would
otherwise win every race, and the engine's pass would wait behind batch after batch.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager


class _Waiter:
    __slots__ = ("handed", "woken")

    def __init__(self, lock: threading.Lock) -> None:
        self.handed = False  # the turn is this writer's: set under the lock, before waking it
        self.woken = threading.Condition(lock)


class WriteTurns:
    """One writer at a time, in the order they asked; urgent writers first, alternating with the
    others while both wait."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: dict[bool, deque[_Waiter]] = {True: deque(), False: deque()}  # oldest first
        self._busy = False
        self._last_was_urgent = False

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

    def waiting(self) -> int:
        """How many writers wait for a turn now."""
        with self._lock:
            return len(self._queues[True]) + len(self._queues[False])

    def _take(self, urgent: bool, patience: float) -> bool:
        with self._lock:
            if not self._busy and not self._queues[True] and not self._queues[False]:
                self._busy = True
                return True
            waiter = _Waiter(self._lock)
            queue = self._queues[urgent]
            queue.append(waiter)
            deadline = time.monotonic() + patience
            while not waiter.handed:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    queue.remove(waiter)
                    return False
                waiter.woken.wait(remaining)
            return True

    def _hand_on(self) -> None:
        """Hand the free turn to the writer whose turn it is next (the lock held)."""
        urgent, other = self._queues[True], self._queues[False]
        if self._busy or not (urgent or other):
            return
        # urgent writers go first, except right after an urgent turn while others wait
        queue = urgent if urgent and (not other or not self._last_was_urgent) else other
        waiter = queue.popleft()
        waiter.handed = True
        self._busy = True
        waiter.woken.notify()
