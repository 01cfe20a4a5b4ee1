"""Signals announced over PostgreSQL's LISTEN/NOTIFY, so the holder of their stack acts at once.

Any daemon of a fleet may keep a signal (its agent API answered the agent or the alarm), but only
the holder of the stack's shard acts on it: it reads scaling signals on a tick, and observes what
waits for deployments' and handles' signals at a slow pace. Keeping a signal also sends a notice on
`CHANNEL` (in the keeping transaction, or after autocommitted statements); PostgreSQL delivers it
to every listening session once, and only once, it is committed. Each daemon listens on a
connection of its own (outside the pool: a listening session is held for good) and rings its
engine when a notice arrives; an engine holding none of the signal's stacks finds nothing.

A listener whose connection is lost connects again after a pause and rings once it listens again,
since a signal may have been kept while nobody heard. SQLite is one host's database: the daemon
that keeps a signal is the one that acts on it, and rings its engine itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection
from typing import Any

import sqlalchemy as sa

LOG = logging.getLogger(__name__)
CHANNEL = "reconciler_scaling_signals"
RESOURCE_SIGNALS = "resources"  # the notice of deployments' and handles' signals (no shard named)
# A notice naming the resources signalled: RESOURCE_SIGNALS, this, then their physical ids, comma
# separated; those that would not fit in a notice's 8,000 bytes are not named (any may be meant).
NAMED = ":"
MOST_NAMED_BYTES = 7000
RECONNECT_PAUSE = 1.0  # seconds between attempts to listen again after the connection was lost
WAIT_SLICE = 0.5  # seconds a listener waits for notices before looking whether it is stopped

_NOTIFY = sa.select(sa.func.pg_notify(CHANNEL, sa.bindparam("shard", type_=sa.String)))


def announce_scaling_signal(connection: sa.Connection, shard: int) -> None:
    """In the transaction keeping a signal of `shard`: tell the fleet's listeners once it commits."""
    if connection.dialect.name == "postgresql":
        connection.execute(_NOTIFY, {"shard": str(shard)})


def announce_resource_signals(connection: sa.Connection, waiters: Collection[str] | None = None) -> None:
    """Once deployments' or handles' signals are kept (in their transaction, or after their
    autocommitted statements): the fleet's listeners observe at once the resources waiting for
    them, `waiters` by physical id (None: every resource waiting for a signal)."""
    if connection.dialect.name == "postgresql":
        connection.execute(_NOTIFY, {"shard": resource_notice(waiters)})


def resource_notice(waiters: Collection[str] | None) -> str:
    """The payload of a notice of signals for `waiters` (None: any resource waiting for one)."""
    if not waiters or any("," in waiter for waiter in waiters):
        return RESOURCE_SIGNALS
    named = ",".join(sorted(waiters))
    return RESOURCE_SIGNALS if len(named) > MOST_NAMED_BYTES else f"{RESOURCE_SIGNALS}{NAMED}{named}"


def resources_named(payload: str) -> frozenset[str] | None:
    """The resources a resource notice's payload names (None: any may be meant)."""
    prefix = RESOURCE_SIGNALS + NAMED
    return frozenset(payload[len(prefix) :].split(",")) if payload.startswith(prefix) else None


class ScalingSignalListener:
    """Listens on a connection of its own (a thread) and calls `heard` for every notice, or, given
    `resources_heard`, that for the notices of resources' signals (with the resources they name)."""

    def __init__(
        self,
        engine: sa.Engine,
        heard: Callable[[], None],
        resources_heard: Callable[[Collection[str] | None], None] | None = None,
    ) -> None:
        """`engine`: opens the listening connection (it holds none pooled); `heard` and
        `resources_heard` are called from the listener's thread."""
        self._engine = engine
        self._heard = heard
        self._resources_heard = resources_heard
        self._stopped = threading.Event()
        self._listening = threading.Event()
        self._thread = threading.Thread(target=self._run, name="scaling-signal-listener", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wait_listening(self, timeout: float) -> bool:
        """Whether the listener listens (within `timeout` s): notices sent from now on are heard."""
        return self._listening.wait(timeout)

    def stop(self, timeout: float = 2.0) -> None:
        self._stopped.set()
        self._thread.join(timeout)
        self._engine.dispose()

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                self._listen()
            except (sa.exc.DBAPIError, self._engine.dialect.loaded_dbapi.Error, OSError) as error:
                LOG.warning(
                    "listening for scaling signals: %s; again in %.0f s",
                    type(error).__name__,
                    RECONNECT_PAUSE,
                )
            self._listening.clear()
            self._stopped.wait(RECONNECT_PAUSE)

    def _listen(self) -> None:
        pooled = self._engine.raw_connection()
        try:
            session: Any = pooled.driver_connection
            session.rollback()
            session.autocommit = True
            session.execute(f"LISTEN {CHANNEL}")
            self._listening.set()
            self._heard()  # a signal kept while nobody listened
            if self._resources_heard is not None:
                self._resources_heard(None)
            while not self._stopped.is_set():
                for notice in session.notifies(timeout=WAIT_SLICE):
                    self._tell(str(notice.payload))
        finally:
            pooled.close()

    def _tell(self, payload: str) -> None:
        if self._resources_heard is not None and payload.startswith(RESOURCE_SIGNALS):
            self._resources_heard(resources_named(payload))
        else:
            self._heard()
