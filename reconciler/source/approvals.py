"""Approvals of destructive actions, kept in git: one JSON line per approval under a notes ref.

`reconciler approve REV [--stack S]` appends `{"kind":"approval","commit":...,"stack":S or "*",
"by":...,"at":...}` to the note of REV under `refs/notes/reconciler-approvals`, which is reviewed
and pushed like everything else in the repository. The daemon reads the approvals of the commit
a stack waits at, and the replacements and deletions that waited go ahead.
"""

from __future__ import annotations

import json
import tempfile

import git

APPROVALS_REF = "refs/notes/reconciler-approvals"
EVERY_STACK = "*"


def approvals_of(repo: git.Repo, commit: str, notes_ref: str = APPROVALS_REF) -> frozenset[str]:
    """The stacks approved at `commit` (`*`: all of them); empty when nothing is."""
    try:
        text: str = repo.git.notes(f"--ref={notes_ref}", "show", commit)
    except git.GitCommandError:
        return frozenset()
    stacks = set()
    for raw in text.splitlines():
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue  # a line written by hand that is not ours
        if isinstance(line, dict) and line.get("kind") == "approval" and line.get("commit") == commit:
            stacks.add(str(line.get("stack", EVERY_STACK)))
    return frozenset(stacks)


def approves(approved: frozenset[str], stack: str) -> bool:
    return EVERY_STACK in approved or stack in approved


def record_approval(repo: git.Repo, commit: str, stack: str, by: str, at: float) -> str:
    """Append an approval of `stack` (or `*`) at `commit`; the line written."""
    line = json.dumps(
        {"kind": "approval", "commit": commit, "stack": stack, "by": by, "at": round(at, 3)},
        sort_keys=True,
        separators=(",", ":"),
    )
    try:
        existing: str = repo.git.notes(f"--ref={APPROVALS_REF}", "show", commit)
    except git.GitCommandError:
        existing = ""
    with tempfile.TemporaryFile() as text:
        text.write(((existing.rstrip("\n") + "\n" if existing.strip() else "") + line + "\n").encode())
        text.seek(0)
        repo.git.notes(f"--ref={APPROVALS_REF}", "add", "-f", "-F", "-", commit, istream=text)
    return line
