"""The read every agent poll makes, on a pooled DBAPI connection of its own.

A fleet polls the agent API hundreds of times a second, and nearly every poll is answered 304 from
one indexed row. Run through a SQLAlchemy connection and transaction, that row costs several times
what the query does (events, a BEGIN, result objects); here the statement is compiled once for the
engine's dialect and run on a raw pooled connection, which the pool resets (rolls back) on return.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa


class QueryFailed(Exception):
    """The database refused or lost the query; whoever asked may try it another way."""


class PooledQuery:
    """One statement, compiled once, run on a pooled DBAPI connection; its first row or None."""

    def __init__(self, engine: sa.Engine, statement: sa.Select[Any]) -> None:
        self._engine = engine
        self._compiled = statement.compile(dialect=engine.dialect)
        self._sql = str(self._compiled)

    def first(self, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first row for these bound values (QueryFailed when the database fails it)."""
        try:
            return self._first(values)
        except (sa.exc.DBAPIError, self._engine.dialect.loaded_dbapi.Error) as error:
            raise QueryFailed(str(error)) from error

    def _first(self, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
        params = self._compiled.construct_params(dict(values))
        arguments: Any = (
            tuple(params[name] for name in self._compiled.positiontup or ())
            if self._compiled.positional
            else params
        )
        connection = self._engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                cursor.execute(self._sql, arguments)
                row = cursor.fetchone()
            finally:
                cursor.close()
        finally:
            connection.close()
        return None if row is None else tuple(row)
