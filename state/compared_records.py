"""Records read to be compared with a desired state: their JSON values decoded only where read.

A plan of a large stack looks at every record, yet reads the applied properties only of the few
resources whose digest differs from the recorded one, and the attributes only of those others read
(`get_attr`). Decoding every record's JSON up front was most of such a plan's time; here each value
stays the text the database returned until something reads it, and is then decoded (and opened, if
sealed) once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from state.models import RESOURCE_RECORDS as RECORDS
from state.sealing import Sealer, is_sealed


class DecodedOnRead(Mapping[str, Any]):
    """A JSON object kept as its text until read."""

    __slots__ = ("_sealer", "_text", "_value")

    def __init__(self, text: str | None, sealer: Sealer | None) -> None:
        self._text = text
        self._sealer = sealer
        self._value: dict[str, Any] | None = None

    def _decoded(self) -> dict[str, Any]:
        value = self._value
        if value is None:
            value = json.loads(self._text) if self._text else {}
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


_COLUMNS = (
    RECORDS.c.stack,
    RECORDS.c.logical_name,
    RECORDS.c.type,
    RECORDS.c.physical_id,
    sa.cast(RECORDS.c.properties, sa.Text),
    sa.cast(RECORDS.c.attributes, sa.Text),
    RECORDS.c.status,
    RECORDS.c.replaced_by,
    RECORDS.c.deletion_policy,
    RECORDS.c.properties_digest,
)


def _records(rows: Any, sealer: Sealer | None) -> Iterator[ComparedRecord]:
    for stack, name, type_name, physical_id, properties, attributes, status, replaced, policy, digest in rows:
        yield ComparedRecord(
            stack,
            name,
            type_name,
            physical_id,
            DecodedOnRead(properties, sealer),
            DecodedOnRead(attributes, sealer),
            status,
            replaced,
            policy,
            digest,
        )


def read_compared_records(
    connection: sa.Connection, stack: str, sealer: Sealer | None = None
) -> list[ComparedRecord]:
    """Every record of a stack, ordered by id."""
    rows = connection.execute(sa.select(*_COLUMNS).where(RECORDS.c.stack == stack).order_by(RECORDS.c.id))
    return list(_records(rows, sealer))


def read_compared_records_under(
    connection: sa.Connection, stack: str, sealer: Sealer | None = None
) -> dict[str, list[ComparedRecord]]:
    """Every record of the stacks nested under `stack` ("app/nodes", "app/nodes/0", ...), by stack."""
    nested = RECORDS.c.stack.startswith(f"{stack}/", autoescape=True)
    rows = connection.execute(sa.select(*_COLUMNS).where(nested).order_by(RECORDS.c.id))
    found: dict[str, list[ComparedRecord]] = {}
    for record in _records(rows, sealer):
        found.setdefault(record.stack, []).append(record)
    return found
