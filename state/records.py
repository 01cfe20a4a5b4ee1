"""Resource records: read all of a stack's at once, write batches of upserts and deletes under a fence.

Writes are batched for large stacks (50,000 records): new records get fresh ids first, then every
upsert goes through the backend's bulk path (`record_batches`); deletes use chunked `IN` lists. The
fence check comes first in the same transaction, so a stale epoch writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sqlalchemy as sa

from state.fencing import Fence, check_fence
from state.models import RESOURCE_RECORDS as RECORDS
from state.plan_memos import stamp_stacks, stamp_stacks_of_records
from state.record_batches import COLUMNS, RecordRow, allocate_record_ids, serialize_json, upsert_record_rows
from state.sealing import Sealer, is_sealed

DELETE_CHUNK = 5_000


@dataclass(frozen=True, slots=True)
class RecordedResource:
    """What the store knows of one physical resource. `id` is the record id used in idempotency markers."""

    id: int
    stack: str
    logical_name: str
    type: str
    physical_id: str | None
    properties: dict[str, Any]
    attributes: dict[str, Any]
    status: str
    generation: int
    replaced_by: int | None
    attempts: int
    next_attempt_at: float | None
    last_error: str | None
    deletion_policy: str
    updated_at: float
    properties_digest: str | None = None
    inputs_digest: str | None = None


@dataclass(slots=True)  # not frozen: frozen fields cost microseconds, and three are made per create
class RecordWrite:
    """A record to write: `record_id=None` inserts a new record; otherwise it replaces that record.

    `properties_json` / `attributes_json`, when given, are the JSON text of `properties` /
    `attributes` already encoded by the writer (who keeps it while the value does not change), so a
    record written again and again is not encoded again each time. `properties_digest` is the
    writer's digest of `properties`, stored unless the properties are sealed; `inputs_digest` the
    digest of what they were resolved from, likewise.
    """

    stack: str
    logical_name: str
    type: str
    status: str
    generation: int
    physical_id: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    attributes: dict[str, Any] = field(default_factory=dict)
    replaced_by: int | None = None
    attempts: int = 0
    next_attempt_at: float | None = None
    last_error: str | None = None
    deletion_policy: str = "Delete"
    record_id: int | None = None
    properties_json: str | None = None
    attributes_json: str | None = None
    properties_digest: str | None = None
    inputs_digest: str | None = None
    # The writer knows the row it replaces holds the same type, status, physical id, inputs digest
    # and replaced_by (an observation's new attributes, say): no plan memo relies on anything else
    # of it, so the stack's records stamp is left as it is.
    plan_fields_kept: bool = False


@dataclass(frozen=True)
class RecordsWritten:
    """The record ids of the upserts, in the order given, and how many records were deleted."""

    record_ids: tuple[int, ...]
    deleted: int


def read_records(
    connection: sa.Connection, stack: str, sealer: Sealer | None = None
) -> list[RecordedResource]:
    """Every record of a stack, ordered by id, sealed values opened when `sealer` is given."""
    columns = [RECORDS.c[name] for name in COLUMNS]
    rows = connection.execute(sa.select(*columns).where(RECORDS.c.stack == stack).order_by(RECORDS.c.id))
    found = [RecordedResource(*row) for row in rows]
    if sealer is None:
        return found
    return [_opened(record, sealer) for record in found]


def read_records_under(
    connection: sa.Connection, stack: str, sealer: Sealer | None = None
) -> dict[str, list[RecordedResource]]:
    """Every record of the stacks nested under `stack` ("app/nodes", "app/nodes/0", ...), by stack."""
    columns = [RECORDS.c[name] for name in COLUMNS]
    nested = RECORDS.c.stack.startswith(f"{stack}/", autoescape=True)
    rows = connection.execute(sa.select(*columns).where(nested).order_by(RECORDS.c.id))
    found: dict[str, list[RecordedResource]] = {}
    for row in rows:
        record = RecordedResource(*row)
        found.setdefault(record.stack, []).append(record if sealer is None else _opened(record, sealer))
    return found


def read_records_of(
    connection: sa.Connection, stacks: Sequence[str], sealer: Sealer | None = None
) -> dict[str, list[RecordedResource]]:
    """Every record of each of `stacks` (ordered by id), by stack, in one query per 500 stacks."""
    columns = [RECORDS.c[name] for name in COLUMNS]
    found: dict[str, list[RecordedResource]] = {stack: [] for stack in stacks}
    names = list(found)
    for start in range(0, len(names), READ_CHUNK):
        chunk = names[start : start + READ_CHUNK]
        query = sa.select(*columns).where(RECORDS.c.stack.in_(chunk)).order_by(RECORDS.c.id)
        rows = connection.execute(query)
        for row in rows:
            record = RecordedResource(*row)
            found[record.stack].append(record if sealer is None else _opened(record, sealer))
    return found


READ_CHUNK = 500


def _opened(record: RecordedResource, sealer: Sealer) -> RecordedResource:
    if not (is_sealed(record.properties) or is_sealed(record.attributes)):
        return record
    return replace(
        record, properties=sealer.opened(record.properties), attributes=sealer.opened(record.attributes)
    )


def count_records(connection: sa.Connection, stack: str) -> int:
    """How many records `stack` has."""
    query = sa.select(sa.func.count()).select_from(RECORDS).where(RECORDS.c.stack == stack)
    return int(connection.execute(query).scalar_one())


def _row(record_id: int, write: RecordWrite, now: float, sealer: Sealer | None) -> RecordRow:
    """The row in COLUMNS order (the round-trip tests hold the two together)."""
    properties = serialize_json(write.properties) if write.properties_json is None else write.properties_json
    attributes = serialize_json(write.attributes) if write.attributes_json is None else write.attributes_json
    digest, inputs = write.properties_digest, write.inputs_digest
    if sealer is not None:
        plain = properties
        properties = sealer.sealed_text(write.stack, properties)
        attributes = sealer.sealed_text(write.stack, attributes)
        if properties is not plain:
            digest = inputs = None
    return (
        record_id,
        write.stack,
        write.logical_name,
        write.type,
        write.physical_id,
        properties,
        attributes,
        write.status,
        write.generation,
        write.replaced_by,
        write.attempts,
        write.next_attempt_at,
        write.last_error,
        write.deletion_policy,
        now,
        digest,
        inputs,
    )


def _delete(connection: sa.Connection, record_ids: Sequence[int]) -> int:
    deleted = 0
    for start in range(0, len(record_ids), DELETE_CHUNK):
        chunk = record_ids[start : start + DELETE_CHUNK]
        deleted += connection.execute(sa.delete(RECORDS).where(RECORDS.c.id.in_(chunk))).rowcount
    return deleted


def write_records(
    connection: sa.Connection,
    fence: Fence,
    upserts: Sequence[RecordWrite],
    deletes: Sequence[int],
    *,
    now: float,
    sealer: Sealer | None = None,
) -> RecordsWritten:
    """Apply upserts and deletes under `fence`; `StaleLease` (and nothing written) if the epoch is stale.

    With `sealer`, properties and attributes holding a hidden value of their stack are sealed."""
    check_fence(connection, fence, now=now)
    return apply_record_writes(connection, upserts, deletes, now=now, sealer=sealer)


def apply_record_writes(
    connection: sa.Connection,
    upserts: Sequence[RecordWrite],
    deletes: Sequence[int],
    *,
    now: float,
    sealer: Sealer | None = None,
) -> RecordsWritten:
    """Apply upserts and deletes in the caller's transaction, whose fence the caller checked."""
    fresh = iter(allocate_record_ids(connection, sum(1 for write in upserts if write.record_id is None)))
    ids = [next(fresh) if write.record_id is None else write.record_id for write in upserts]
    upsert_record_rows(
        connection,
        [_row(record_id, write, now, sealer) for record_id, write in zip(ids, upserts, strict=True)],
    )
    stamp_stacks(connection, {write.stack for write in upserts if not write.plan_fields_kept})
    if deletes:
        stamp_stacks_of_records(connection, list(deletes))
    deleted = _delete(connection, list(deletes))
    return RecordsWritten(record_ids=tuple(ids), deleted=deleted)
