"""Scratch databases for the state benchmarks: a temporary SQLite file, or a fresh PostgreSQL database.

Given a PostgreSQL server URL, the benchmark creates its own database on that server and drops it
afterwards, so it never touches data that is already there.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from state.urls import database_url


@contextmanager
def scratch_database(server: str | None) -> Iterator[str]:
    """A URL of an empty database: SQLite in a temporary directory when `server` is None."""
    if server is None or database_url(server).get_backend_name() == "sqlite":
        with tempfile.TemporaryDirectory(prefix="reconciler-bench-") as directory:
            yield f"sqlite:///{Path(directory) / 'state.sqlite'}"
        return
    url = database_url(server)
    name = f"reconciler_bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
        yield url.set(database=name).render_as_string(hide_password=False)
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()
