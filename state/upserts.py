"""INSERT ... ON CONFLICT for the backend at hand: both dialects spell it the same way in SQLAlchemy."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite


def dialect_insert(connection: sa.Connection, table: sa.Table) -> postgresql.Insert | sqlite.Insert:
    """An INSERT that offers `on_conflict_do_update` / `on_conflict_do_nothing` on either backend."""
    if connection.dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)
