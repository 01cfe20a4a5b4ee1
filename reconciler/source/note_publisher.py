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


class NotesOutbox(Protocol):
    """What publishing needs of the state store."""

    def enqueue_notes(self, notes: Sequence[OutboxLine]) -> list[int]: ...

    def pending_notes(self, limit: int = 1000) -> list[PendingNote]: ...

    def mark_notes_sent(self, note_ids: Sequence[int]) -> int: ...


@dataclass(frozen=True)
class Published:
    """How many lines were written, to which refs, and how many were dropped as unusable."""

    written: int
    refs: frozenset[str]
    dropped: int


def outbox_line(line: NoteLine, notes_ref: str) -> OutboxLine:
    """A note line as the outbox records it."""
    return OutboxLine(commit_sha=line.commit, notes_ref=notes_ref, stack=line.stack, line=line.to_json())


def _is_commit(repo: git.Repo, sha: str) -> bool:
    try:
        repo.git.cat_file("-e", f"{sha}^{{commit}}")
    except git.GitCommandError:
        return False
    return True


def publish_pending(outbox: NotesOutbox, repo: git.Repo, limit: int = 1000) -> Published:
    """Write every pending outbox line into the repository's notes and mark them sent."""
    pending = outbox.pending_notes(limit)
    grouped: dict[tuple[str, str], list[tuple[int, NoteLine]]] = defaultdict(list)
    dropped: list[int] = []
    for entry in pending:
        try:
            grouped[(entry.notes_ref, entry.commit_sha)].append((entry.id, parse_line(entry.line)))
        except NoteFormatError as error:
            LOG.warning("dropping outbox entry %d: %s", entry.id, error)
            dropped.append(entry.id)
    written = 0
    for (notes_ref, commit), entries in grouped.items():
        if not _is_commit(repo, commit):
            LOG.warning("cannot note %s under %s: no such commit here; dropped", commit[:12], notes_ref)
            dropped.extend(entry_id for entry_id, _line in entries)
            continue
        try:
            NotesStore(repo, notes_ref).write_all(commit, [line for _id, line in entries])
        except git.GitCommandError as error:
            LOG.warning(
                "cannot note commit %s under %s (exit %s); dropped", commit[:12], notes_ref, error.status
            )
            dropped.extend(entry_id for entry_id, _line in entries)
            continue
        outbox.mark_notes_sent([entry_id for entry_id, _line in entries])
        written += len(entries)
    outbox.mark_notes_sent(dropped)
    return Published(written=written, refs=frozenset(ref for ref, _commit in grouped), dropped=len(dropped))
