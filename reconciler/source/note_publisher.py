"""Publishing the notes outbox: note lines recorded in the state store, written into git.

The engine's outcomes and their note lines are recorded in one database transaction (the outbox),
so a crash can never lose a note. Publishing reads the pending lines, writes each commit's lines
with one notes commit, and marks them sent; sharing the notes ref with a remote is a separate step
(`FollowedRepository.share_notes`), retried on its own schedule, so a remote that is down never
blocks local notes. One process per repository publishes: git's notes ref is not for concurrent
writers in one clone.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import git

from reconciler.source.note_lines import NoteFormatError, NoteLine, parse_line
from reconciler.source.notes_store import NotesStore
from state import NoteLine as OutboxLine
from state import PendingNote

LOG = logging.getLogger(__name__)
UNKNOWN_COMMIT_PATIENCE = 3600.0  # seconds a line waits for its commit to be fetched here


class NotesOutbox(Protocol):
    """What publishing needs of the state store."""

    def enqueue_notes(self, notes: Sequence[OutboxLine]) -> list[int]: ...

    def pending_notes(self, limit: int = 1000) -> list[PendingNote]: ...

    def mark_notes_sent(self, note_ids: Sequence[int]) -> int: ...


@dataclass(frozen=True)
class Published:
    """Lines written (and to which refs), dropped as unusable, and left waiting for their commit."""

    written: int
    refs: frozenset[str]
    dropped: int
    waiting: int = 0


def outbox_line(line: NoteLine, notes_ref: str) -> OutboxLine:
    """A note line as the outbox records it."""
    return OutboxLine(commit_sha=line.commit, notes_ref=notes_ref, stack=line.stack, line=line.to_json())


def _is_commit(repo: git.Repo, sha: str) -> bool:
    try:
        repo.git.cat_file("-e", f"{sha}^{{commit}}")
    except git.GitCommandError:
        return False
    return True


def publish_pending(
    outbox: NotesOutbox,
    repo: git.Repo,
    *,
    now: float,
    patience: float = UNKNOWN_COMMIT_PATIENCE,
    limit: int = 1000,
) -> Published:
    """Write every pending outbox line into the repository's notes and mark them sent.

    A line about a commit this clone does not have yet stays pending: another host may have
    recorded it before this one fetched that commit. After `patience` seconds it is dropped.
    """
    pending = outbox.pending_notes(limit)
    grouped: dict[tuple[str, str], list[tuple[int, float, NoteLine]]] = defaultdict(list)
    dropped: list[int] = []
    for entry in pending:
        try:
            line = parse_line(entry.line)
        except NoteFormatError as error:
            LOG.warning("dropping outbox entry %d: %s", entry.id, error)
            dropped.append(entry.id)
            continue
        grouped[(entry.notes_ref, entry.commit_sha)].append((entry.id, entry.created_at, line))
    written = 0
    waiting = 0
    refs: set[str] = set()
    for (notes_ref, commit), entries in grouped.items():
        ids = [entry_id for entry_id, _created, _line in entries]
        if not _is_commit(repo, commit):
            if all(now - created > patience for _id, created, _line in entries):
                LOG.warning("cannot note %s under %s: no such commit here; dropped", commit[:12], notes_ref)
                dropped.extend(ids)
            else:
                waiting += len(ids)
            continue
        try:
            NotesStore(repo, notes_ref).write_all(commit, [line for _id, _created, line in entries])
        except git.GitCommandError as error:
            LOG.warning(
                "cannot note commit %s under %s (exit %s); dropped", commit[:12], notes_ref, error.status
            )
            dropped.extend(ids)
            continue
        outbox.mark_notes_sent(ids)
        written += len(ids)
        refs.add(notes_ref)
    outbox.mark_notes_sent(dropped)
    return Published(written=written, refs=frozenset(refs), dropped=len(dropped), waiting=waiting)
