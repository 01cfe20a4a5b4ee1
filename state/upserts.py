"""INSERT ... ON CONFLICT for the backend at hand: both dialects spell it the same way in SQLAlchemy."""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite


def dialect_insert(connection: sa.Connection, table: sa.Table) -> postgresql.Insert | sqlite.Insert:
    """An INSERT that offers `on_conflict_do_update` / `on_conflict_do_nothing` on either backend."""
    if connection.dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


ROWS_PER_STATEMENT = 500
SQLITE_DEFAULT_VARIABLE_LIMIT = 999  # the lowest a SQLite build may have


def rows_per_statement(connection: sa.Connection, columns: int) -> int:
    """How many rows of `columns` values one multi-row statement may carry on this backend."""
    if connection.dialect.name != "sqlite":
        return ROWS_PER_STATEMENT
    driver = connection.connection.driver_connection
    limit = SQLITE_DEFAULT_VARIABLE_LIMIT
    if driver is not None:
        limit = driver.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    return max(1, min(ROWS_PER_STATEMENT, limit // columns))
