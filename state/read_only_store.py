"""Opening the store to read only: no migration, no shard rows, nothing written.

Commands that only read (`reconciler outputs`) must not change a database a service of another
version may be running on: an older schema is refused with what to do rather than upgraded under
the service's feet, and a SQLite file that does not exist is refused rather than created.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import URL

from state.database import create_database_engine
from state.errors import SchemaNotCurrent
from state.lease_settings import LeaseSettings
from state.migrate import current_revision, head_revision
from state.store import Store
from state.transactions import Transactor
from state.urls import database_url, display_url
from timekeeping import Clock, SystemClock


def _missing_sqlite_file(url: URL) -> Path | None:
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    path = Path(url.database)
    return None if path.exists() else path


def open_store_read_only(raw_url: str | URL, *, clock: Clock) -> Store:
    """The store at `raw_url` for reading; SchemaNotCurrent when it is missing or not at this
    code's schema."""
    url = database_url(raw_url)
    missing = _missing_sqlite_file(url)
    if missing is not None:
        raise SchemaNotCurrent(
            f"no state database at {missing}: the service has not run with it yet, or --database "
            "points elsewhere"
        )
    found, expected = current_revision(url), head_revision()
    if found != expected:
        raise SchemaNotCurrent(
            f"the state database {display_url(url)} is at schema {found or 'none'}, this reconciler "
            f"reads {expected}; run `reconciler db upgrade` (or start the service) first"
        )
    settings = LeaseSettings()
    transactor = Transactor(create_database_engine(url), clock=clock, sleeper=SystemClock())
    return Store(transactor, clock=clock, settings=settings)
