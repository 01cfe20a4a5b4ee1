"""Where each stack declared at a commit stands: the newest convergence line on it or before it.

A commit notes only the stacks it touched; a stack it left alone is at the newest commit of the
branch (first parents, back from it) whose note has a convergence line for that stack. A stack
no commit has noted yet is PENDING at the commit asked about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import git

from reconciler.source.note_lines import CONVERGENCE, NoteLine, newest_per_stack
from reconciler.source.notes_store import NotesStore

HISTORY_LIMIT = 10_000  # first-parent commits walked back at most
NOT_YET = "no note yet"


def noted_commits(repo: git.Repo, notes_ref: str) -> frozenset[str]:
    """Every commit holding a note under `notes_ref` (one `git notes list`)."""
    try:
        listing: str = repo.git.notes(f"--ref={notes_ref}", "list")
    except git.GitCommandError:
        return frozenset()
    return frozenset(row.split()[1] for row in listing.splitlines() if len(row.split()) == 2)


def stack_positions(
    repo: git.Repo, notes_ref: str, commit: str, declared: Iterable[str]
) -> Mapping[str, NoteLine]:
    """Each of `declared` -> its newest convergence line at `commit` or a first-parent ancestor."""
    wanted = set(declared)
    found: dict[str, NoteLine] = {}
    noted = noted_commits(repo, notes_ref)
    notes = NotesStore(repo, notes_ref)
    if noted and wanted:
        history = repo.git.rev_list("--first-parent", f"--max-count={HISTORY_LIMIT}", commit).split()
        for sha in history:
            if sha not in noted:
                continue
            for line in newest_per_stack(notes.read(sha)):
                if line.kind == CONVERGENCE and line.stack in wanted and line.stack not in found:
                    found[line.stack] = line
            if len(found) == len(wanted):
                break
    for stack in sorted(wanted - found.keys()):
        found[stack] = NoteLine(CONVERGENCE, stack, commit, "PENDING", 0.0, failures=(NOT_YET,))
    return found
