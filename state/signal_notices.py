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
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

LOG = logging.getLogger(__name__)
CHANNEL = "reconciler_scaling_signals"
RESOURCE_SIGNALS = "resources"  # the notice of deployments' and handles' signals (no shard named)
RECONNECT_PAUSE = 1.0  # seconds between attempts to listen again after the connection was lost
WAIT_SLICE = 0.5  # seconds a listener waits for notices before looking whether it is stopped

_NOTIFY = sa.select(sa.func.pg_notify(CHANNEL, sa.bindparam("shard", type_=sa.String)))


def announce_scaling_signal(connection: sa.Connection, shard: int) -> None:
    """In the transaction keeping a signal of `shard`: tell the fleet's listeners once it commits."""
    if connection.dialect.name == "postgresql":
        connection.execute(_NOTIFY, {"shard": str(shard)})


def announce_resource_signals(connection: sa.Connection) -> None:
    """Once deployments' or handles' signals are kept (in their transaction, or after their
    autocommitted statements): the fleet's listeners observe what waits for signals at once."""
    if connection.dialect.name == "postgresql":
        connection.execute(_NOTIFY, {"shard": RESOURCE_SIGNALS})


class ScalingSignalListener:
    """Listens on a connection of its own (a thread) and calls `heard` for every notice."""

    def __init__(self, engine: sa.Engine, heard: Callable[[], None]) -> None:
        """`engine`: opens the listening connection (it holds none pooled); `heard` is called from
        the listener's thread."""
        self._engine = engine
        self._heard = heard
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
            while not self._stopped.is_set():
                for _ in session.notifies(timeout=WAIT_SLICE):
                    self._heard()
        finally:
            pooled.close()
