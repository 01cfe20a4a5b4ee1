"""Outgoing notifications: each stack event POSTed as JSON to a URL, signed with HMAC-SHA256.

As Flux's notification controller does for its generic-hmac provider, the body is signed with the
shared secret and the signature travels as `X-Signature: sha256=<hex>`; the receiver recomputes
it over the raw body. Events are queued by the engine's pass (which must not wait) and sent in
order from one thread. A refused connection, a timeout, a 429 or a 5xx is retried with
exponential backoff, up to `attempts`; any other answer is final. A full queue drops the oldest
event (and says so): a slow receiver never holds the daemon back.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from reconciler import __version__
from reconciler.daemon.stack_board import FAILED, INVALID, StackEvent
from reconciler.daemon.stack_events_log import event_message
from reconciler.daemon.webhook_auth import hmac_sha256

LOG = logging.getLogger(__name__)
QUEUE_LIMIT = 10_000
RETRYABLE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class Delivery:
    """How to deliver: where, with which secret, and how persistently."""

    url: str
    secret: bytes | None = None
    attempts: int = 5
    first_backoff: float = 1.0  # seconds; doubled after each failed attempt
    timeout: float = 10.0


def event_body(event: StackEvent) -> bytes:
    """The JSON an event is sent as."""
    body = {
        "event": event.event,
        "stack": event.stack,
        "commit": event.commit,
        "status": event.status,
        "at": round(event.at, 3),
        "severity": "error" if event.event in (FAILED, INVALID) else "info",
        "message": event_message(event),
        "counts": dict(event.counts),
        "reasons": list(event.reasons),
        "repaired": list(event.repaired),
        "reporter": {"name": "reconciler", "version": __version__},
    }
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


class Notifier:
    """Sends queued events on its own thread; `send` only queues."""

    def __init__(self, delivery: Delivery, wait: Callable[[float], bool] | None = None) -> None:
        self.delivery = delivery
        self._queue: collections.deque[StackEvent] = collections.deque()
        self._ready = threading.Condition()
        self._stopped = threading.Event()
        self._wait = wait if wait is not None else self._stopped.wait  # True: stop, give up waiting
        self._thread = threading.Thread(target=self._run, name="notifications", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, deadline: float = 5.0) -> None:
        self._stopped.set()
        with self._ready:
            self._ready.notify_all()
        if self._thread.is_alive():
            self._thread.join(deadline)

    def send(self, event: StackEvent) -> None:
        """Queue `event` (a sink of the stack board)."""
        with self._ready:
            if len(self._queue) >= QUEUE_LIMIT:
                dropped = self._queue.popleft()
                LOG.warning("notification queue full: dropped %s of %s", dropped.event, dropped.stack)
            self._queue.append(event)
            self._ready.notify()

    def _next(self) -> StackEvent | None:
        with self._ready:
            while not self._queue and not self._stopped.is_set():
                self._ready.wait()
            return self._queue.popleft() if self._queue else None

    def _run(self) -> None:
        while (event := self._next()) is not None:
            self._deliver(event)

    def _deliver(self, event: StackEvent) -> None:
        body = event_body(event)
        backoff = self.delivery.first_backoff
        for attempt in range(1, self.delivery.attempts + 1):
            outcome = self._post(body)
            if outcome is None:
                return
            if not outcome[0] or attempt == self.delivery.attempts:
                LOG.warning(
                    "notification %s of %s not delivered (attempt %d): %s",
                    event.event,
                    event.stack,
                    attempt,
                    outcome[1],
                )
                return
            if self._wait(backoff):
                return
            backoff *= 2

    def _post(self, body: bytes) -> tuple[bool, str] | None:
        """None when delivered, else (whether to retry, why not)."""
        headers = {"Content-Type": "application/json", "User-Agent": f"reconciler/{__version__}"}
        if self.delivery.secret is not None:
            headers["X-Signature"] = "sha256=" + hmac_sha256(self.delivery.secret, body)
        request = urllib.request.Request(self.delivery.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.delivery.timeout) as response:
                response.read()
            return None
        except urllib.error.HTTPError as error:
            return (error.code in RETRYABLE_STATUSES, f"HTTP {error.code}")
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            reason = getattr(error, "reason", error)
            return (True, str(reason))
