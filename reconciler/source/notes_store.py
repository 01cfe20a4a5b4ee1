"""Reading and writing reconciler notes in a git repository, and sharing them with a remote.

Writing is local: the note of a commit is read, the new line replaces the older lines of its kind
and stack, and the note is replaced whole with `git notes add -f`. Sharing is
fetch, merge (`cat_sort_uniq`), push, retried when the remote moved in between; the push refspec is
never forced, so a writer can never erase another writer's notes.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import git

from reconciler.source.note_lines import NoteLine, parse_note, render_note, with_line

DEFAULT_NOTES_REF = "refs/notes/reconciler"
MERGE_STRATEGY = "cat_sort_uniq"
DEFAULT_PUSH_ATTEMPTS = 5

# The identity of the notes commits the reconciler makes (notes refs are commits).
NOTES_IDENTITY = {
    "GIT_AUTHOR_NAME": "reconciler",
    "GIT_AUTHOR_EMAIL": "reconciler@localhost",
    "GIT_COMMITTER_NAME": "reconciler",
    "GIT_COMMITTER_EMAIL": "reconciler@localhost",
}


@dataclass(frozen=True)
class Pushed:
    """The notes ref reached the remote after `attempts` tries."""

    attempts: int


@dataclass(frozen=True)
class NothingToPush:
    """There is no local notes ref yet."""


@dataclass(frozen=True)
class PushRejected:
    """The remote kept moving (or refused) for every attempt; the notes stay local until next time."""

    attempts: int
    reason: str


PushOutcome = Pushed | NothingToPush | PushRejected


def _tracking_ref(notes_ref: str, remote: str) -> str:
    """Where the remote's notes are fetched to: still under refs/notes/, as `git notes merge` wants."""
    return f"refs/notes/{remote}-remote/{notes_ref.removeprefix('refs/notes/')}"


class NotesStore:
    """The reconciler notes of one repository under one notes ref."""

    def __init__(self, repo: git.Repo, notes_ref: str = DEFAULT_NOTES_REF) -> None:
        if not notes_ref.startswith("refs/notes/"):
            raise ValueError(f"notes ref {notes_ref!r} must start with refs/notes/")
        self.repo = repo
        self.notes_ref = notes_ref

    def _notes(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        result: str = self.repo.git.notes(f"--ref={self.notes_ref}", *args, env=env)
        return result

    def read_text(self, commit: str) -> str:
        """The raw note of `commit`, or "" when it has none."""
        try:
            return self._notes("show", commit, env=None) + "\n"
        except git.GitCommandError:
            return ""

    def read(self, commit: str) -> list[NoteLine]:
        """Every line of the note of `commit` (possibly several per stack; see `newest_per_stack`)."""
        return parse_note(self.read_text(commit))

    def write(self, line: NoteLine) -> None:
        """Record `line` on its commit, replacing the older lines of its kind and stack."""
        self.write_all(line.commit, [line])

    def write_all(self, commit: str, lines: Iterable[NoteLine]) -> None:
        """Record several lines on one commit with a single notes commit."""
        merged = self.read(commit)
        for line in lines:
            merged = with_line(merged, line)
        with tempfile.TemporaryFile() as text:
            text.write(render_note(merged).encode("utf-8"))
            text.seek(0)
            self.repo.git.notes(
                f"--ref={self.notes_ref}", "add", "-f", "-F", "-", commit, istream=text, env=NOTES_IDENTITY
            )

    def fetch_merge(self, remote: str = "origin") -> None:
        """Fetch the remote's notes and merge them into ours with cat_sort_uniq."""
        tracking = _tracking_ref(self.notes_ref, remote)
        try:
            self.repo.git.fetch(remote, f"+{self.notes_ref}:{tracking}")
        except git.GitCommandError as error:
            if "couldn't find remote ref" in str(error).lower():
                return  # nobody has pushed notes yet
            raise
        if not self._has_ref(self.notes_ref):
            self.repo.git.update_ref(self.notes_ref, tracking)
            return
        self._notes("merge", "--quiet", "-s", MERGE_STRATEGY, tracking, env=NOTES_IDENTITY)

    def push(self, remote: str = "origin", attempts: int = DEFAULT_PUSH_ATTEMPTS) -> PushOutcome:
        """Fetch, merge and push the notes ref, again while the remote rejects it; never forced."""
        if not self._has_ref(self.notes_ref):
            self.fetch_merge(remote)
            if not self._has_ref(self.notes_ref):
                return NothingToPush()
        reason = "not attempted"
        for attempt in range(1, attempts + 1):
            self.fetch_merge(remote)
            try:
                self.repo.git.push(remote, f"{self.notes_ref}:{self.notes_ref}")
            except git.GitCommandError as error:
                reason = _rejection(error)
                continue
            return Pushed(attempts=attempt)
        return PushRejected(attempts=attempts, reason=reason)

    def _has_ref(self, ref: str) -> bool:
        try:
            self.repo.git.rev_parse("--verify", "--quiet", ref)
        except git.GitCommandError:
            return False
        return True


def _rejection(error: git.GitCommandError) -> str:
    """Why git refused a push, from its `[rejected]` line (never the URL, which may hold a token)."""
    for line in str(error.stderr).splitlines():
        if "rejected]" in line:
            return line.strip(" !'\"")
    return f"push failed (exit {error.status})"
