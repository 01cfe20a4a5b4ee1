"""Records read to be compared with a desired state: their JSON values decoded only where read.

A plan of a large stack looks at every record, yet reads the applied properties only of the few
resources whose digest differs from the recorded one, and the attributes only of those others read
(`get_attr`). Decoding every record's JSON up front was most of such a plan's time; here each value
stays the text the database returned until something reads it, and is then decoded (and opened, if
sealed) once. Attributes, the bulk of a record, are not even fetched with the records: the first
one read fetches those of every record of the same read, in one query of its own (so they may be
newer than the records, never older).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from state.models import RESOURCE_RECORDS as RECORDS
from state.sealing import Sealer, is_sealed


class AttributeTexts:
    """The attributes' JSON texts of the records of one read, by record id, fetched on first use."""

    def __init__(self, fetch: Callable[[], Mapping[int, str]]) -> None:
        self._fetch = fetch
        self._texts: Mapping[int, str] | None = None

    def text(self, record_id: int) -> str | None:
        if self._texts is None:
            self._texts = self._fetch()
        return self._texts.get(record_id)


class DecodedOnRead(Mapping[str, Any]):
    """A JSON object kept as its text (or as the record id whose attributes text `texts` fetches)
    until read."""

    __slots__ = ("_record_id", "_sealer", "_text", "_texts", "_value")

    def __init__(
        self,
        text: str | None,
        sealer: Sealer | None,
        texts: AttributeTexts | None = None,
        record_id: int = 0,
    ) -> None:
        self._text = text
        self._sealer = sealer
        self._texts = texts
        self._record_id = record_id
        self._value: dict[str, Any] | None = None

    def _decoded(self) -> dict[str, Any]:
        value = self._value
        if value is None:
            text = self._text if self._texts is None else self._texts.text(self._record_id)
            value = json.loads(text) if text else {}
            if self._sealer is not None and is_sealed(value):
                value = self._sealer.opened(value)
            self._value = value = value if isinstance(value, dict) else {}
        return value

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


@dataclass(slots=True)  # not frozen: made once per record read, and frozen fields cost microseconds
class ComparedRecord:
    """A record as a plan compares it: its values decoded when read. Never changed once made."""

    stack: str
    logical_name: str
    type: str
    physical_id: str | None
    properties: Mapping[str, Any]
    attributes: Mapping[str, Any]
    status: str
    replaced_by: int | None
    deletion_policy: str
    properties_digest: str | None
    inputs_digest: str | None = None


_COLUMNS = (
    RECORDS.c.id,
    RECORDS.c.stack,
    RECORDS.c.logical_name,
    RECORDS.c.type,
    RECORDS.c.physical_id,
    sa.cast(RECORDS.c.properties, sa.Text),
    RECORDS.c.status,
    RECORDS.c.replaced_by,
    RECORDS.c.deletion_policy,
    RECORDS.c.properties_digest,
    RECORDS.c.inputs_digest,
)


def of_stack(stack: str) -> sa.ColumnElement[bool]:
    """The records of `stack`."""
    return RECORDS.c.stack == stack


def under_stack(stack: str) -> sa.ColumnElement[bool]:
    """The records of the stacks nested under `stack` ("app/nodes", "app/nodes/0", ...)."""
    return RECORDS.c.stack.startswith(f"{stack}/", autoescape=True)


def _records(rows: Any, sealer: Sealer | None, texts: AttributeTexts) -> Iterator[ComparedRecord]:
    for record_id, stack, name, type_name, physical_id, properties, status, replaced, policy, digest, inputs in rows:
        yield ComparedRecord(
            stack,
            name,
            type_name,
            physical_id,
            DecodedOnRead(properties, sealer),
            DecodedOnRead(None, sealer, texts, record_id),
            status,
            replaced,
            policy,
            digest,
            inputs,
        )


def read_compared_records(
    connection: sa.Connection,
    where: sa.ColumnElement[bool],
    texts: AttributeTexts,
    sealer: Sealer | None = None,
) -> dict[str, list[ComparedRecord]]:
    """The records `where` selects, by stack, each stack's ordered by id; their attributes come
    from `texts` (`attribute_texts` of the same `where`)."""
    rows = connection.execute(sa.select(*_COLUMNS).where(where).order_by(RECORDS.c.id))
    found: dict[str, list[ComparedRecord]] = {}
    for record in _records(rows, sealer, texts):
        found.setdefault(record.stack, []).append(record)
    return found


def attribute_texts(connection: sa.Connection, where: sa.ColumnElement[bool]) -> dict[int, str]:
    """The attributes' JSON text of the records `where` selects, by record id."""
    query = sa.select(RECORDS.c.id, sa.cast(RECORDS.c.attributes, sa.Text)).where(where)
    return {record_id: text for record_id, text in connection.execute(query)}
