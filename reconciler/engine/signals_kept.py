"""Signals kept for resources waiting for one: told from the agent API's threads, taken by a pass.

A signal may be kept before its resource waits for it here: the create (or update) call published
the deployment, and the agent ran it and answered before the pass that handles the call's result.
Told of it then, no resource here claims it, and the resource would wait for its type's next poll
of all of them (up to `signal_poll` later). So the physical ids signalled in the last
`REMEMBERED` seconds are kept, and a resource that starts waiting for a signal already kept is
observed at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection

REMEMBERED = 60.0  # seconds a kept signal is remembered for a resource that may start waiting for it


class SignalsKept:
    """What `tell` said since the last `take`, and which physical ids were signalled lately."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: set[str] = set()
        self._anyone = False
        self._lately: OrderedDict[str, float] = OrderedDict()  # physical id -> when taken, oldest first

    def tell(self, waiters: Collection[str] | None) -> None:
        """Signals were kept for `waiters` (None: for any resource waiting for one); thread-safe."""
        with self._lock:
            if waiters is None:
                self._anyone = True
            else:
                self._waiters.update(waiters)

    def take(self, now: float) -> tuple[set[str], bool] | None:
        """The waiters told since the last take and whether anyone may be meant; None if nothing."""
        with self._lock:
            waiters, anyone = self._waiters, self._anyone
            if not (waiters or anyone):
                return None
            self._waiters, self._anyone = set(), False
        for waiter in waiters:
            self._lately[waiter] = now
            self._lately.move_to_end(waiter)  # the order stays the order taken
        while self._lately and next(iter(self._lately.values())) <= now - REMEMBERED:
            self._lately.popitem(last=False)
        return waiters, anyone

    def lately(self, physical_id: str) -> bool:
        """Whether a signal was kept for `physical_id` in the last `REMEMBERED` seconds (taken)."""
        return physical_id in self._lately
