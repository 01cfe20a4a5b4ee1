"""The newest stack events this worker saw, kept in memory for the status page.

A sink of the stack board like the log line and the notifier: it keeps the last `capacity` events
(older ones are in the journal), so the page shows what just happened without reading logs.
"""

from __future__ import annotations

import threading
from collections import deque

from reconciler.daemon.stack_board import StackEvent

DEFAULT_CAPACITY = 200


class RecentEvents:
    """A bounded, thread-safe list of the newest events."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._lock = threading.Lock()
        self._events: deque[StackEvent] = deque(maxlen=capacity)

    def send(self, event: StackEvent) -> None:
        with self._lock:
            self._events.append(event)

    def newest(self, count: int, stack: str | None = None) -> list[StackEvent]:
        """Up to `count` events, newest first; only `stack`'s when it is given."""
        with self._lock:
            events = list(self._events)
        chosen = [event for event in reversed(events) if stack is None or event.stack == stack]
        return chosen[:count]
