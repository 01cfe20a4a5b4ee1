"""Many stacks' statuses and outputs written in a few multi-row statements.

An engine pass over a thousand nested stacks moves a thousand stack rows. One UPDATE per row is a
thousand statements; on SQLite each lets go of the interpreter lock and waits to take it back
behind the engine's call threads, so the number of statements, not of rows, is what a pass pays.
Here each kind of write is one `INSERT ... ON CONFLICT (name) DO UPDATE` per few hundred rows, on
either backend. Every stack written has its row already (made with its first generation), so the
INSERT half never applies in practice; it carries the row's shard so that it would be right if it did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from state.models import STACKS
from state.stacks import StackStatus
from state.upserts import dialect_insert, rows_per_statement


@dataclass(frozen=True, slots=True)
class StackStatusWrite:
    """A stack's status with its reasons, the generation it describes and the commit it is at."""

    stack: str
    status: StackStatus
    reasons: tuple[str, ...] = ()
    generation: int | None = None
    commit: str | None = None


@dataclass(frozen=True, slots=True)
class StackOutputsWrite:
    """A stack's outputs (name -> value), replacing the ones it had."""

    stack: str
    outputs: Mapping[str, Any]


_STATUS_COLUMNS = ("status", "status_reasons", "status_generation", "status_commit", "updated_at")


def set_statuses(
    connection: sa.Connection, writes: Sequence[tuple[int, StackStatusWrite]], *, now: float
) -> None:
    """Set each stack's status; `writes` are (the stack's shard, its status), one per stack."""
    rows: list[dict[str, Any]] = [
        {
            "name": write.stack,
            "shard": shard,
            "status": write.status.value,
            "status_reasons": list(write.reasons),
            "status_generation": write.generation,
            "status_commit": write.commit,
            "outputs": {},
            "updated_at": now,
        }
        for shard, write in writes
    ]
    _upsert(connection, rows, _STATUS_COLUMNS)


def store_outputs(
    connection: sa.Connection, writes: Sequence[tuple[int, StackOutputsWrite]], *, now: float
) -> None:
    """Replace each stack's outputs; `writes` are (the stack's shard, its outputs), one per stack."""
    rows = [
        {
            "name": write.stack,
            "shard": shard,
            "status": StackStatus.PENDING.value,
            "status_reasons": [],
            "outputs": dict(write.outputs),
            "updated_at": now,
        }
        for shard, write in writes
    ]
    _upsert(connection, rows, ("outputs", "updated_at"))


def _upsert(connection: sa.Connection, rows: list[dict[str, Any]], updated: Sequence[str]) -> None:
    """Rows sorted by name, so two writers locking rows on PostgreSQL take them in one order."""
    if not rows:
        return
    rows.sort(key=lambda row: str(row["name"]))
    chunk = rows_per_statement(connection, len(rows[0]))
    for start in range(0, len(rows), chunk):
        insert = dialect_insert(connection, STACKS).values(rows[start : start + chunk])
        excluded = insert.excluded
        connection.execute(
            insert.on_conflict_do_update(
                index_elements=[STACKS.c.name], set_={name: excluded[name] for name in updated}
            )
        )
