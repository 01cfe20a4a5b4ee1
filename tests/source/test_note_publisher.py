"""The notes outbox published into a real repository from a real state store (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

from reconciler.source.note_lines import NoteLine
from reconciler.source.note_publisher import outbox_line, publish_pending
from reconciler.source.notes_store import NotesStore
from state import open_store
from tests.daemon.stepped_clock import SteppedClock
from tests.source.git_repos import commit_files, init_repository

REF = "refs/notes/reconciler"


def test_pending_lines_become_notes_once(tmp_path: Path, database_url: str) -> None:
    repo = init_repository(tmp_path / "repo")
    first = commit_files(repo, {"a": "1\n"})
    second = commit_files(repo, {"a": "2\n"})
    store = open_store(database_url, clock=SteppedClock())
    lines = [
        NoteLine(kind="convergence", stack="network", commit=first, status="PROGRESSING", at=1.0),
        NoteLine(kind="convergence", stack="network", commit=first, status="CONVERGED", at=2.0),
        NoteLine(kind="convergence", stack="app", commit=second, status="CONVERGED", at=2.0),
        NoteLine(kind="convergence", stack="app", commit="0" * 40, status="CONVERGED", at=2.0),
    ]
    store.enqueue_notes([outbox_line(line, REF) for line in lines])

    published = publish_pending(store, repo)

    assert (published.written, published.dropped, published.refs) == (3, 1, frozenset({REF}))
    notes = NotesStore(repo, REF)
    assert [(line.stack, line.status) for line in notes.read(first)] == [("network", "CONVERGED")]
    assert [(line.stack, line.status) for line in notes.read(second)] == [("app", "CONVERGED")]
    assert store.pending_notes() == []
    assert publish_pending(store, repo).written == 0
    store.close()
