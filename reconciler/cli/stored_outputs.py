"""One stack's outputs read straight through the database's own driver, for `reconciler outputs`.

`outputs` answers in a fraction of a second, as a script calling it in a loop needs; importing
SQLAlchemy and Alembic alone takes longer than that. So this reader speaks to the database with
its driver (`sqlite3`, or psycopg for PostgreSQL), reads two things and writes nothing: the schema
revision Alembic recorded, which must be this code's (an older database is refused, never
upgraded: a service of another version may be running on it), and the stack's `outputs` column.
This code's revision is read from the migration files themselves (`state/revisions.py`), so it
cannot drift from them.
"""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit


class OutputsUnreadable(ValueError):
    """The database cannot be read for outputs; the message names it and what to do."""


def schema_head() -> str:
    """The newest revision among the packaged migrations (the one no other revises)."""
    spec = importlib.util.find_spec("state")  # finds the package without importing it
    if spec is None or spec.origin is None:
        raise OutputsUnreadable("the state package's migrations are not installed")
    # state/revisions.py is run from its file, as importing it would import the state package
    loaded = importlib.util.spec_from_file_location(
        "reconciler_schema_revisions", Path(spec.origin).with_name("revisions.py")
    )
    if loaded is None or loaded.loader is None:
        raise OutputsUnreadable("the state package's revisions module is not installed")
    revisions = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(revisions)
    try:
        return str(revisions.packaged_head())
    except ValueError as unreadable:
        raise OutputsUnreadable(str(unreadable)) from None


def _masked(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


@dataclass(frozen=True)
class _Opened:
    """A DB-API connection with the query text its driver wants and the errors it raises."""

    connection: Any
    outputs_query: str
    errors: tuple[type[Exception], ...]


def _sqlite(url: str) -> _Opened:
    path = unquote(url.split(":///", 1)[1]) if ":///" in url else ""
    if not path or not Path(path).exists():
        raise OutputsUnreadable(
            f"no state database at {path or url}: the service has not run with it yet, or --database "
            "points elsewhere"
        )
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return _Opened(connection, "SELECT outputs FROM stacks WHERE name = ?", (sqlite3.Error,))


def _postgresql(url: str) -> _Opened:
    import psycopg

    connection = psycopg.connect(f"postgresql://{url.partition('://')[2]}", autocommit=True)
    connection.read_only = True
    return _Opened(connection, "SELECT outputs FROM stacks WHERE name = %s", (psycopg.Error,))


def _connect(url: str) -> _Opened:
    scheme = url.partition("://")[0]
    if scheme in ("sqlite", "sqlite+pysqlite"):
        return _sqlite(url)
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        return _postgresql(url)
    backend = scheme.partition("+")[0] or url
    raise OutputsUnreadable(
        f"unsupported database backend {backend!r} in {_masked(url)}; use sqlite:// or postgresql:// "
        "(check --database or RECONCILER_DATABASE_URL)"
    )


def _revision(opened: _Opened) -> str | None:
    try:
        row = opened.connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except opened.errors:  # no such table: a database no reconciler made
        return None
    return None if row is None else str(row[0])


def stored_outputs(url: str, stack: str) -> dict[str, Any] | None:
    """`stack`'s outputs in the database at `url` (None: no such stack); OutputsUnreadable when the
    database is missing or not at this code's schema."""
    opened = _connect(url)
    try:
        found, expected = _revision(opened), schema_head()
        if found != expected:
            raise OutputsUnreadable(
                f"the state database {_masked(url)} is at schema {found or 'none'}, this reconciler "
                f"reads {expected}; run `reconciler db upgrade` (or start the service) first"
            )
        row = opened.connection.execute(opened.outputs_query, (stack,)).fetchone()
    finally:
        opened.connection.close()
    if row is None:
        return None
    value = row[0]
    return dict(json.loads(value) if isinstance(value, str | bytes) else value or {})
