"""Bulk paths for resource records: ids handed out up front, then one bulk upsert per backend.

A 50,000-resource stack writes its records in one transaction, where SQLAlchemy's per-row
parameter processing would cost seconds, so the batch takes the driver's own bulk path: on SQLite
`INSERT ... VALUES (...), (...), ... ON CONFLICT DO UPDATE` with hundreds of rows per statement; on
PostgreSQL `COPY` into a session-local staging table (psycopg 3's copy protocol) and one
`INSERT ... SELECT ... ON CONFLICT DO UPDATE`. SQLite's `executemany` steps the statement once per
row, and each step lets go of the GIL: in a process whose other threads want it (the engine's
provider calls), taking it back after every row makes a large write wait on those threads once per
row. A multi-row statement takes it back once per statement.

New records get their ids before the write: from the sequence on PostgreSQL, and on SQLite from
`sqlite_sequence` while the transaction holds the write lock (`BEGIN IMMEDIATE`), so ids map to
records without relying on the order of RETURNING rows, and are never reused (the tables are
AUTOINCREMENT).
"""

from __future__ import annotations

import _json
import functools
import json
import sqlite3
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from state.models import RESOURCE_RECORDS

TABLE = RESOURCE_RECORDS.name
COLUMNS = tuple(column.name for column in RESOURCE_RECORDS.columns)
JSON_COLUMNS = frozenset({"properties", "attributes"})
STAGING = "resource_records_staging"

RecordRow = tuple[Any, ...]  # values in COLUMNS order, JSON columns already serialized


_ENCODER = json.JSONEncoder(separators=(",", ":"))
# The C encoder behind `_ENCODER.encode`, made once because `encode` makes a new one per call; the
# same output. It keeps no table of the containers
# it is inside: a value that contains itself fails with RecursionError rather than ValueError.
_ENCODE = _json.make_encoder(
    None, _ENCODER.default, _json.encode_basestring_ascii, None, ":", ",", False, False, True
)


def serialize_json(value: Any) -> str:
    """JSON text for a JSON column, compact."""
    if not value and type(value) is dict:
        return "{}"
    return "".join(_ENCODE(value, 0))


def allocate_record_ids(connection: sa.Connection, count: int) -> list[int]:
    """`count` fresh record ids, never handed out before."""
    if count == 0:
        return []
    if connection.dialect.name == "postgresql":
        sequence = (
            "SELECT nextval(pg_get_serial_sequence('resource_records', 'id')) FROM generate_series(1, %(n)s)"
        )
        return list(connection.exec_driver_sql(sequence, {"n": count}).scalars())
    highest = connection.exec_driver_sql(
        f"SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '{TABLE}'), 0), "
        f"coalesce((SELECT max(id) FROM {TABLE}), 0))"
    ).scalar()
    start = int(highest or 0) + 1
    return list(range(start, start + count))


def _conflict_update() -> str:
    return ", ".join(f"{name} = excluded.{name}" for name in COLUMNS if name != "id")


def upsert_record_rows(connection: sa.Connection, rows: Sequence[RecordRow]) -> None:
    """Insert rows with their ids, or replace the records with those ids, in bulk."""
    if not rows:
        return
    names = ", ".join(COLUMNS)
    if connection.dialect.name == "postgresql":
        _copy_upsert(connection, rows, names)
        return
    _multi_row_upsert(connection, rows)


def _multi_row_upsert(connection: sa.Connection, rows: Sequence[RecordRow]) -> None:
    driver = connection.connection.driver_connection
    if driver is None:  # pragma: no cover - a checked-out connection always has one
        raise RuntimeError("no driver connection")
    limit = driver.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    chunk = max(1, min(SQLITE_ROWS_PER_STATEMENT, limit // len(COLUMNS)))
    cursor = driver.cursor()
    try:
        for start in range(0, len(rows), chunk):
            part = rows[start : start + chunk]
            cursor.execute(_sqlite_upsert(len(part)), [value for row in part for value in row])
    finally:
        cursor.close()


SQLITE_ROWS_PER_STATEMENT = 500


@functools.lru_cache(maxsize=32)
def _sqlite_upsert(rows: int) -> str:
    """The statement for `rows` rows (full chunks share one text, so SQLite prepares it once)."""
    one = "(" + ", ".join("?" for _ in COLUMNS) + ")"
    values = ", ".join(one for _ in range(rows))
    return (
        f"INSERT INTO {TABLE} ({', '.join(COLUMNS)}) VALUES {values} "
        f"ON CONFLICT (id) DO UPDATE SET {_conflict_update()}"
    )


def _copy_upsert(connection: sa.Connection, rows: Sequence[RecordRow], names: str) -> None:
    driver = connection.connection.driver_connection
    if driver is None:  # pragma: no cover - a checked-out connection always has one
        raise RuntimeError("no driver connection")
    with driver.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE IF NOT EXISTS {STAGING} (LIKE {TABLE} INCLUDING DEFAULTS) "
            "ON COMMIT DELETE ROWS"
        )
        with cursor.copy(f"COPY {STAGING} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        cursor.execute(
            f"INSERT INTO {TABLE} ({names}) SELECT {names} FROM {STAGING} "
            f"ON CONFLICT (id) DO UPDATE SET {_conflict_update()}"
        )
        cursor.execute(f"TRUNCATE {STAGING}")
