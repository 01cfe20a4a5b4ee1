"""The notes outbox published into a real repository from a real state store (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

from reconciler.source.note_lines import NoteLine
from reconciler.source.note_publisher import UNKNOWN_COMMIT_PATIENCE, outbox_line, publish_pending
from reconciler.source.notes_store import NotesStore
from state import open_store
from tests.source.git_repos import commit_files, init_repository
from timekeeping.testing import SteppedClock

REF = "refs/notes/reconciler"


def test_pending_lines_become_notes_once(tmp_path: Path, database_url: str) -> None:
    repo = init_repository(tmp_path / "repo")
    first = commit_files(repo, {"a": "1\n"})
    second = commit_files(repo, {"a": "2\n"})
    clock = SteppedClock()
    store = open_store(database_url, clock=clock)
    lines = [
        NoteLine(kind="convergence", stack="network", commit=first, status="PROGRESSING", at=1.0),
        NoteLine(kind="convergence", stack="network", commit=first, status="CONVERGED", at=2.0),
        NoteLine(kind="convergence", stack="app", commit=second, status="CONVERGED", at=2.0),
        NoteLine(kind="convergence", stack="app", commit="0" * 40, status="CONVERGED", at=2.0),
    ]
    store.enqueue_notes([outbox_line(line, REF) for line in lines])

    published = publish_pending(store, repo, now=clock.now())

    assert (published.written, published.dropped, published.waiting) == (3, 0, 1)
    assert published.refs == frozenset({REF})
    notes = NotesStore(repo, REF)
    assert [(line.stack, line.status) for line in notes.read(first)] == [("network", "CONVERGED")]
    assert [(line.stack, line.status) for line in notes.read(second)] == [("app", "CONVERGED")]
    # the line about a commit this clone lacks waits (another host may have it), then is dropped
    assert [entry.commit_sha for entry in store.pending_notes()] == ["0" * 40]
    later = publish_pending(store, repo, now=clock.now() + 2 * UNKNOWN_COMMIT_PATIENCE)
    assert (later.written, later.dropped) == (0, 1)
    assert store.pending_notes() == []
    store.close()
