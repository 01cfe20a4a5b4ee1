"""Current records read to be compared with a desired state: their JSON values fetched and decoded
only where read.

A plan of a large stack looks at every record, yet reads the applied properties only of the few
resources it must compare property by property, and the attributes only of those others read
(`get_attr`). So the records are read without either JSON column (the bulk of a row): each value
is fetched when first read, alone for the first few records asked (a plan of a small change asks a
few), then with those of every record of the same read in one query; then decoded (and opened, if
sealed) once. A value fetched after the records were read may
be newer than they are, never older.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import sqlalchemy as sa

from state.models import RESOURCE_RECORDS as RECORDS
from state.sealing import Sealer, is_sealed

FETCHED_ALONE = 16  # records whose value is fetched alone before every record's is fetched at once


class ColumnTexts:
    """One JSON column's texts for the records of one read, by record id, fetched when first asked;
    sealed ones opened with `sealer`."""

    def __init__(
        self,
        fetch_one: Callable[[int], str | None],
        fetch_all: Callable[[], Mapping[int, str]],
        sealer: Sealer | None = None,
    ) -> None:
        self._fetch_one = fetch_one
        self._fetch_all = fetch_all
        self.sealer = sealer
        self._texts: Mapping[int, str] | None = None
        self._alone = 0

    def text(self, record_id: int) -> str | None:
        if self._texts is None:
            if self._alone < FETCHED_ALONE:
                self._alone += 1
                return self._fetch_one(record_id)
            self._texts = self._fetch_all()
        return self._texts.get(record_id)


class DecodedOnRead(Mapping[str, Any]):
    """A record's JSON object, kept as the id of the record whose text `texts` fetches until read
    (two fields to set: one is made per value of every record read)."""

    __slots__ = ("_record_id", "_texts", "_value")

    def __init__(self, texts: ColumnTexts, record_id: int) -> None:
        self._texts = texts
        self._record_id = record_id

    def _decoded(self) -> dict[str, Any]:
        try:
            return self._value
        except AttributeError:
            pass
        texts = self._texts
        text = texts.text(self._record_id)
        value = json.loads(text) if text else {}
        if texts.sealer is not None and is_sealed(value):
            value = texts.sealer.opened(value)
        self._value: dict[str, Any] = value if isinstance(value, dict) else {}
        return self._value

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())

    def __contains__(self, key: object) -> bool:
        return key in self._decoded()

    def __repr__(self) -> str:
        return repr(self._decoded())


class ComparedRecord(NamedTuple):
    """A current record (replaced by none) as a plan compares it: its values fetched and decoded when
    read. A named tuple: one is made per record read, and a tuple is made fastest."""

    stack: str
    logical_name: str
    type: str
    physical_id: str | None
    properties: Mapping[str, Any]
    attributes: Mapping[str, Any]
    status: str
    deletion_policy: str
    properties_digest: str | None
    inputs_digest: str | None = None


_COLUMNS = (
    RECORDS.c.id,
    RECORDS.c.stack,
    RECORDS.c.logical_name,
    RECORDS.c.type,
    RECORDS.c.physical_id,
    RECORDS.c.status,
    RECORDS.c.deletion_policy,
    RECORDS.c.properties_digest,
    RECORDS.c.inputs_digest,
)
JSON_COLUMNS = {"properties": RECORDS.c.properties, "attributes": RECORDS.c.attributes}


def of_stack(stack: str) -> sa.ColumnElement[bool]:
    """The records of `stack`."""
    return RECORDS.c.stack == stack


NAMES_PER_READ = 500


def named_in_stack(stack: str, names: Sequence[str]) -> sa.ColumnElement[bool]:
    """The records of `stack` with these logical names."""
    return sa.and_(RECORDS.c.stack == stack, RECORDS.c.logical_name.in_(names))


def under_stack(stack: str) -> sa.ColumnElement[bool]:
    """The records of the stacks nested under `stack` ("app/nodes", "app/nodes/0", ...)."""
    return RECORDS.c.stack.startswith(f"{stack}/", autoescape=True)


def read_compared_records(
    connection: sa.Connection,
    where: sa.ColumnElement[bool],
    properties: ColumnTexts,
    attributes: ColumnTexts,
) -> dict[str, list[ComparedRecord]]:
    """The current records `where` selects, by stack, each stack's ordered by id; their properties
    and attributes come from `properties` and `attributes` (`column_text` and `column_texts` of the
    same `where`)."""
    query = sa.select(*_COLUMNS).where(where, RECORDS.c.replaced_by.is_(None)).order_by(RECORDS.c.id)
    rows = connection.execute(query).fetchall()  # whole: iterating fetches a row per driver call
    found: dict[str, list[ComparedRecord]] = {}
    make = ComparedRecord._make
    for record_id, stack, name, type_name, physical_id, status, policy, digest, inputs in rows:
        record = make(
            (
                stack,
                name,
                type_name,
                physical_id,
                DecodedOnRead(properties, record_id),
                DecodedOnRead(attributes, record_id),
                status,
                policy,
                digest,
                inputs,
            )
        )
        held = found.get(stack)
        if held is None:
            found[stack] = [record]
        else:
            held.append(record)
    return found


def column_text(connection: sa.Connection, column: str, record_id: int) -> str | None:
    """The JSON text of one record's `column` ("properties" or "attributes")."""
    query = sa.select(sa.cast(JSON_COLUMNS[column], sa.Text)).where(RECORDS.c.id == record_id)
    text: str | None = connection.execute(query).scalar()
    return text


def column_texts(connection: sa.Connection, column: str, where: sa.ColumnElement[bool]) -> dict[int, str]:
    """The JSON text of `column` of the current records `where` selects, by record id."""
    query = sa.select(RECORDS.c.id, sa.cast(JSON_COLUMNS[column], sa.Text)).where(
        where, RECORDS.c.replaced_by.is_(None)
    )
    return dict(connection.execute(query).fetchall())
