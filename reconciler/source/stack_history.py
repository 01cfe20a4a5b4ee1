"""A stack's history per commit: its convergence line on each noted commit of the branch, newest first.

Read from the notes alone, as `reconciler status` reads them: one `git notes list`, one
`git log --first-parent` (commits with their subjects), then the notes of the noted commits
through one `git cat-file --batch` process, back from the branch head until `limit` commits noted
the stack; of each note only the lines naming the stack are parsed. The repository is opened here
and closed again, so a caller on another thread never shares git processes with the daemon's own
passes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import git

from reconciler.source.note_lines import CONVERGENCE, NoteFormatError, NoteLine, newest_per_stack, parse_line
from reconciler.source.stack_positions import HISTORY_LIMIT


@dataclass(frozen=True)
class CommitEntry:
    """The stack's newest convergence line on one commit, with the commit's subject line."""

    commit: str
    subject: str
    line: NoteLine


def _notes_by_commit(repo: git.Repo, notes_ref: str) -> dict[str, str]:
    """Commit -> the blob id of its note under `notes_ref`."""
    try:
        listing: str = repo.git.notes(f"--ref={notes_ref}", "list")
    except git.GitCommandError:
        return {}
    pairs = (row.split() for row in listing.splitlines())
    return {pair[1]: pair[0] for pair in pairs if len(pair) == 2}


def _lines_on(repo: git.Repo, blob: str, stack: str) -> list[NoteLine]:
    """`stack`'s lines of one note. A note of a commit that touched every stack holds a line per
    stack: only the lines naming this one (as JSON writes the name) are parsed."""
    needles = {json.dumps(stack), json.dumps(stack, ensure_ascii=False)}
    text = repo.odb.stream(bytes.fromhex(blob)).read().decode("utf-8", errors="replace")
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if any(needle in raw for needle in needles):
            try:
                lines.append(parse_line(raw, number))
            except NoteFormatError:
                continue  # a hand-edited line the page cannot read is left out, not fatal
    return newest_per_stack(line for line in lines if line.stack == stack)


def stack_history(repo_path: Path, notes_ref: str, head: str, stack: str, limit: int) -> list[CommitEntry]:
    """`stack`'s convergence lines on the first-parent history of `head`, newest first, at most `limit`."""
    repo = git.Repo(repo_path)
    try:
        notes = _notes_by_commit(repo, notes_ref)
        if not notes:
            return []
        history = repo.git.log("--first-parent", f"--max-count={HISTORY_LIMIT}", "--format=%H %s", head)
        entries: list[CommitEntry] = []
        for sha, _space, subject in (row.partition(" ") for row in history.splitlines()):
            blob = notes.get(sha)
            if blob is None:
                continue
            for line in _lines_on(repo, blob, stack):
                if line.kind == CONVERGENCE:
                    entries.append(CommitEntry(sha, subject, line))
            if len(entries) >= limit:
                break
        return entries[:limit]
    finally:
        repo.close()
