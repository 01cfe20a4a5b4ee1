"""The notes outbox: git note lines recorded with the state that produced them, written to git later.

Recording the line in the same database as the state means a crash between the two cannot lose a
note; whoever pushes notes reads the pending lines, writes them to git, and marks them sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from state.models import NOTES_OUTBOX as OUTBOX


@dataclass(frozen=True, slots=True)
class NoteLine:
    """One JSON line to attach as a note to `commit_sha` under `notes_ref`, about `stack`."""

    commit_sha: str
    notes_ref: str
    stack: str
    line: str


@dataclass(frozen=True, slots=True)
class PendingNote:
    """A recorded note line not yet sent."""

    id: int
    commit_sha: str
    notes_ref: str
    stack: str
    line: str
    created_at: float


def enqueue_notes(connection: sa.Connection, notes: Sequence[NoteLine], *, now: float) -> list[int]:
    """Record note lines; returns their ids in the order given."""
    if not notes:
        return []
    rows = [
        {
            "commit_sha": n.commit_sha,
            "notes_ref": n.notes_ref,
            "stack": n.stack,
            "line": n.line,
            "created_at": now,
        }
        for n in notes
    ]
    result = connection.execute(sa.insert(OUTBOX).returning(OUTBOX.c.id, sort_by_parameter_order=True), rows)
    return list(result.scalars())


def pending_notes(connection: sa.Connection, limit: int = 1000) -> list[PendingNote]:
    """The oldest note lines not yet sent."""
    rows = connection.execute(
        sa.select(
            OUTBOX.c.id,
            OUTBOX.c.commit_sha,
            OUTBOX.c.notes_ref,
            OUTBOX.c.stack,
            OUTBOX.c.line,
            OUTBOX.c.created_at,
        )
        .where(OUTBOX.c.sent_at.is_(None))
        .order_by(OUTBOX.c.id)
        .limit(limit)
    )
    return [PendingNote(*row) for row in rows]


def mark_sent(connection: sa.Connection, note_ids: Sequence[int], *, now: float) -> int:
    """Mark note lines sent; returns how many were still pending."""
    if not note_ids:
        return 0
    result = connection.execute(
        sa.update(OUTBOX).where(OUTBOX.c.id.in_(note_ids), OUTBOX.c.sent_at.is_(None)).values(sent_at=now)
    )
    return result.rowcount


def purge_sent(connection: sa.Connection, *, sent_before: float) -> int:
    """Delete note lines sent before `sent_before`; returns how many."""
    return connection.execute(sa.delete(OUTBOX).where(OUTBOX.c.sent_at < sent_before)).rowcount
