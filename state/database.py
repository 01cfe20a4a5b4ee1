"""Engines tuned per backend: SQLite in WAL with immediate write transactions, PostgreSQL on psycopg 3.

SQLite: WAL lets readers run beside the one writer; `BEGIN IMMEDIATE` takes the write lock at the
start of every writing transaction, so a read-then-write (fencing check, queue claim) can never be
overtaken by another writer between its read and its write (transactions marked read-only begin
deferred and read a WAL snapshot beside the writer); `busy_timeout` makes waiting writers queue
instead of failing. The pysqlite driver's own transaction handling is switched off so SQLAlchemy's
BEGIN is the one that counts (the recipe SQLAlchemy documents for pysqlite).

PostgreSQL: READ COMMITTED with conditional UPDATEs and row locks; `pool_pre_ping` replaces
connections the server dropped before they are used. An engine for work that is retried whole on a
connection error (`pre_ping=False`) skips that round trip on every checkout instead.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL

from state.urls import database_url

READ_ONLY_OPTION = "reconciler_read_only"  # execution option: this transaction only reads
SQLITE_BUSY_TIMEOUT_MS = 30_000
SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}",
    "PRAGMA temp_store=MEMORY",
    "PRAGMA cache_size=-65536",
)


# SQLite connections kept open between uses; more at once are opened, and closed once returned
SQLITE_KEPT_CONNECTIONS = 16

# libpq: give up connecting after 5 s, and notice a silently dead peer (partition) within ~11 s.
POSTGRES_CONNECT_ARGS = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
}


def create_database_engine(
    raw_url: str | URL,
    *,
    idle_transaction_timeout: float | None = None,
    pre_ping: bool = True,
    pool_size: int = 5,
    sqlite_connections: int = 15,
) -> sa.Engine:
    """An Engine for the URL, configured for the store's transactions on that backend.

    `sqlite_connections` (SQLite): how many threads may hold a connection at once before others
    wait for one; a SQLite connection is a file opened in this process, so as many as the threads
    that read at once cost little, and fewer make readers queue behind one another for seconds.

    `pre_ping=False` (PostgreSQL): a pooled connection is used as it is, with no ping first; only
    for work that runs again whole when its connection turns out dead.

    `idle_transaction_timeout` (PostgreSQL): the server ends a session that sits idle inside a
    transaction that long, e.g. a worker frozen (SIGSTOP, swapped out) between two statements of a
    fenced write. Its share lock on the lease row would otherwise keep the shard from being taken
    over for as long as the freeze lasts; with the timeout, the row is free again shortly after.
    """
    url = database_url(raw_url)
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url, sqlite_connections)
    engine = sa.create_engine(
        url,
        pool_pre_ping=pre_ping,
        pool_size=pool_size,
        max_overflow=5,
        connect_args=dict(POSTGRES_CONNECT_ARGS),
    )
    if idle_transaction_timeout is not None:
        _limit_idle_transactions(engine, milliseconds=max(1, round(idle_transaction_timeout * 1000)))
    return engine


def create_listening_engine(raw_url: str | URL) -> sa.Engine:
    """PostgreSQL: an Engine for a session held for good (LISTEN), with no pool: a connection closed
    is closed, so one lost is never handed out again."""
    return sa.create_engine(
        database_url(raw_url), poolclass=sa.pool.NullPool, connect_args=dict(POSTGRES_CONNECT_ARGS)
    )


def _limit_idle_transactions(engine: sa.Engine, *, milliseconds: int) -> None:
    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        autocommit = dbapi_connection.autocommit
        dbapi_connection.autocommit = True
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET idle_in_transaction_session_timeout = {milliseconds}")
        dbapi_connection.autocommit = autocommit


def is_postgresql(engine: sa.Engine) -> bool:
    """True when the engine speaks to PostgreSQL (SKIP LOCKED, row locks, advisory locks)."""
    return engine.dialect.name == "postgresql"


def _sqlite_engine(url: URL, connections: int) -> sa.Engine:
    pooling: dict[str, Any] = {}
    if url.database not in (None, "", ":memory:"):  # a database in memory is one connection's own
        kept = min(connections, SQLITE_KEPT_CONNECTIONS)
        pooling = {"pool_size": kept, "max_overflow": max(0, connections - kept)}
    engine = sa.create_engine(
        url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **pooling
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself, below
        cursor = dbapi_connection.cursor()
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: sa.Connection) -> None:
        reading = connection.get_execution_options().get(READ_ONLY_OPTION, False)
        connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")

    return engine
