"""The tables of the state store, with an index for every hot query.

Times are seconds since the Unix epoch as double precision, always read from the injected clock
(never the database's `now()`), so a stepped test clock drives expiry exactly. JSON columns are JSONB
on PostgreSQL and JSON text on SQLite.

Hot queries and the index serving each:
- lease acquire/renew/release: `shard_leases` primary key; a worker's shards: `ix_shard_leases_owner`.
- live workers: `ix_workers_heartbeat_at`.
- a stack's newest generation: `uq_stack_generations_stack_generation` (stack, generation).
- all records of a stack: `ix_resource_records_stack`; due retries: `ix_resource_records_next_attempt`.
- queue claim: `ix_work_items_ready` (status, next_attempt_at); reclaim: `ix_work_items_claimed_by`.
- pending notes: `ix_notes_outbox_pending` (sent_at, id).
- retries asked of a shard's holder: `ix_retry_requests_shard`.
- the stacks of a shard: `ix_stacks_shard`.
- a template's parsed blocks: `template_blocks` primary key (slot).
- a stack's plan memo: `plan_memos` primary key (stack).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

JsonValue = sa.JSON().with_variant(JSONB(), "postgresql")
Timestamp: sa.Double[float] = sa.Double()
# SQLite only auto-increments an INTEGER PRIMARY KEY, so big ids are BIGINT on PostgreSQL alone. Tables
# whose ids leave the database (idempotency markers, logs) use AUTOINCREMENT on SQLite, so a deleted
# row's id is never handed out again; PostgreSQL sequences never reuse a value anyway.
RowId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


class Base(DeclarativeBase):
    """Declarative base holding the store's metadata."""

    type_annotation_map = {dict[str, Any]: JsonValue, list[Any]: JsonValue, float: Timestamp}


class Worker(Base):
    """A daemon process taking part in the shard leases; alive while its heartbeat is recent."""

    __tablename__ = "workers"

    id: Mapped[str] = mapped_column(sa.String(128), primary_key=True)
    host: Mapped[str] = mapped_column(sa.String(255))
    pid: Mapped[int] = mapped_column(sa.Integer)
    started_at: Mapped[float]
    heartbeat_at: Mapped[float] = mapped_column(index=True)


class ShardLease(Base):
    """Who holds a shard, until when, and the epoch that fences every write made under it."""

    __tablename__ = "shard_leases"

    shard: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    owner: Mapped[str | None] = mapped_column(sa.String(128), index=True)
    epoch: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    expires_at: Mapped[float] = mapped_column(default=0.0)


class Stack(Base):
    """A stack by name (its identity), the shard it lives on, its status and its outputs."""

    __tablename__ = "stacks"

    name: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    shard: Mapped[int] = mapped_column(sa.Integer, index=True)
    status: Mapped[str] = mapped_column(sa.String(16), default="PENDING")
    status_reasons: Mapped[list[Any]] = mapped_column(default=list)
    status_generation: Mapped[int | None] = mapped_column(sa.Integer)
    status_commit: Mapped[str | None] = mapped_column(sa.String(64))  # the commit the status is at
    outputs: Mapped[dict[str, Any]] = mapped_column(default=dict)
    updated_at: Mapped[float]
    # A fresh random token at every write of the stack's records (NULL: none written since this
    # column came): a plan memo made at one stamp holds only while the records are still at it.
    records_stamp: Mapped[str | None] = mapped_column(sa.String(32))


class StackGeneration(Base):
    """One desired state of a stack: the commit and definition digest that produced it."""

    __tablename__ = "stack_generations"
    __table_args__ = (
        sa.UniqueConstraint("stack", "generation", name="uq_stack_generations_stack_generation"),
    )

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    stack: Mapped[str] = mapped_column(sa.String(255), sa.ForeignKey("stacks.name", ondelete="CASCADE"))
    generation: Mapped[int] = mapped_column(sa.Integer)
    commit_sha: Mapped[str] = mapped_column(sa.String(64))
    definition_digest: Mapped[str] = mapped_column(sa.String(128))
    inputs: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[float]
    # How the generation ended when it stopped being converged to before it settled: SUPERSEDED
    # (a newer one took over). NULL: the newest, or one that settled before the next arrived.
    ended_status: Mapped[str | None] = mapped_column(sa.String(32))


class ResourceRecord(Base):
    """What the store knows of one physical resource; its id goes into idempotency markers."""

    __tablename__ = "resource_records"
    __table_args__ = (
        sa.Index("ix_resource_records_next_attempt", "next_attempt_at"),
        sa.Index("ix_resource_records_stack_status", "stack", "status"),  # reads by stack, counts by status
        {"sqlite_autoincrement": True},  # ids go into idempotency markers: never reuse one
    )

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    stack: Mapped[str] = mapped_column(sa.String(255), sa.ForeignKey("stacks.name", ondelete="CASCADE"))
    logical_name: Mapped[str] = mapped_column(sa.String(255))
    type: Mapped[str] = mapped_column(sa.String(255))
    physical_id: Mapped[str | None] = mapped_column(sa.String(255))
    properties: Mapped[dict[str, Any]] = mapped_column(default=dict)
    attributes: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(sa.String(32))
    generation: Mapped[int] = mapped_column(sa.Integer)
    replaced_by: Mapped[int | None] = mapped_column(RowId)
    attempts: Mapped[int] = mapped_column(sa.Integer, default=0)
    next_attempt_at: Mapped[float | None]
    last_error: Mapped[str | None] = mapped_column(sa.Text)
    # Heat's deletion policy (Delete, Retain, Snapshot) as last converged: what removal does.
    deletion_policy: Mapped[str] = mapped_column(sa.String(16), default="Delete", server_default="Delete")
    updated_at: Mapped[float]
    # The digest of `properties` its writer computed (None when sealed: a digest of a hidden value
    # would let anyone holding the database test guesses of it); a plan compares it first.
    properties_digest: Mapped[str | None] = mapped_column(sa.String(64))
    # The digest of what `properties` were resolved from (`reconciler.plan.resolution_inputs`; None
    # when sealed, or when they read attributes): a plan equal to it needs not resolve them.
    inputs_digest: Mapped[str | None] = mapped_column(sa.String(64))


class WorkItem(Base):
    """A cloud operation any live worker may claim; `attempts` counts claims."""

    __tablename__ = "work_items"
    __table_args__ = (
        sa.Index("ix_work_items_ready", "status", "next_attempt_at"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    shard: Mapped[int] = mapped_column(sa.Integer)
    stack: Mapped[str] = mapped_column(sa.String(255))
    kind: Mapped[str] = mapped_column(sa.String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(sa.String(16))
    claimed_by: Mapped[str | None] = mapped_column(sa.String(128), index=True)
    claimed_at: Mapped[float | None]
    attempts: Mapped[int] = mapped_column(sa.Integer, default=0)
    next_attempt_at: Mapped[float]
    last_error: Mapped[str | None] = mapped_column(sa.Text)
    created_at: Mapped[float]
    completed_at: Mapped[float | None]


class NoteOutboxEntry(Base):
    """A git note line waiting to be written and pushed; `sent_at` is set once it is."""

    __tablename__ = "notes_outbox"
    __table_args__ = (sa.Index("ix_notes_outbox_pending", "sent_at", "id"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    commit_sha: Mapped[str] = mapped_column(sa.String(64))
    notes_ref: Mapped[str] = mapped_column(sa.String(255))
    stack: Mapped[str] = mapped_column(sa.String(255))
    line: Mapped[str] = mapped_column(sa.Text)
    created_at: Mapped[float]
    sent_at: Mapped[float | None]


class RetryRequestRow(Base):
    """A person's ask to retry a stack's FAILED resources now, read by whoever holds its shard."""

    __tablename__ = "retry_requests"
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    stack: Mapped[str] = mapped_column(sa.String(255))
    resource: Mapped[str | None] = mapped_column(sa.String(255))  # None: every resource of the stack
    shard: Mapped[int] = mapped_column(sa.Integer, index=True)
    requested_at: Mapped[float]


class TemplateBlocksRow(Base):
    """A template's resources as last parsed, by slot (path and limits): each block's parsed value by
    the digest of its text, so any process loading that template again parses only what changed."""

    __tablename__ = "template_blocks"

    slot: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    content: Mapped[bytes] = mapped_column(sa.LargeBinary)


class PlanMemoRow(Base):
    """What the last plan of a stack found settled, made at a records stamp (what it means is the
    plan layer's), so the next plan over the same records decides only what its template changed."""

    __tablename__ = "plan_memos"

    stack: Mapped[str] = mapped_column(
        sa.String(255), sa.ForeignKey("stacks.name", ondelete="CASCADE"), primary_key=True
    )
    records_stamp: Mapped[str] = mapped_column(sa.String(32))
    content: Mapped[bytes] = mapped_column(sa.LargeBinary)


metadata = Base.metadata


def _table(model: type[Base]) -> sa.Table:
    table = model.__table__
    if not isinstance(table, sa.Table):  # pragma: no cover - declarative models always map a Table
        raise TypeError(f"{model.__name__} is not mapped to a table")
    return table


WORKERS = _table(Worker)
SHARD_LEASES = _table(ShardLease)
STACKS = _table(Stack)
STACK_GENERATIONS = _table(StackGeneration)
RESOURCE_RECORDS = _table(ResourceRecord)
WORK_ITEMS = _table(WorkItem)
NOTES_OUTBOX = _table(NoteOutboxEntry)
RETRY_REQUESTS = _table(RetryRequestRow)
TEMPLATE_BLOCKS = _table(TemplateBlocksRow)
PLAN_MEMOS = _table(PlanMemoRow)
