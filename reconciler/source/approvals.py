"""Approvals of destructive actions, kept in git: one JSON line per approval under a notes ref.

`reconciler approve REV [--stack S]` appends `{"kind":"approval","commit":...,"stack":S or "*",
"by":...,"at":...}` to the note of REV under `refs/notes/reconciler-approvals`, which is reviewed
and pushed like everything else in the repository. The daemon reads the approvals of the commit
a stack waits at, and the replacements and deletions that waited go ahead.

`reconciler approve --sign` signs an approval the way git signs a commit, because that is what it
is: a commit object whose parent is REV, whose tree is REV's and whose message is the approval's
line, made by `git commit-tree -S` with the approver's own signing key (`user.signingkey`,
`gpg.format`). The raw signed object rides in the line (`"signed"`, base64), so the note holds
everything needed to check it and merges like any other line. When verification is on, the
daemon counts only approvals whose object `git verify-commit` accepts under the same policy as
the commits; the others are refused with the reason.
"""

from __future__ import annotations

import base64
import binascii
import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import git

from reconciler.source.signatures import TrustPolicy, Unverified, verify_commit

APPROVALS_REF = "refs/notes/reconciler-approvals"
EVERY_STACK = "*"
SIGNED = "signed"


@dataclass(frozen=True)
class RefusedApproval:
    """An approval line that does not count: unsigned, or not signed by a trusted key."""

    stack: str
    by: str
    reason: str


@dataclass(frozen=True)
class CheckedApprovals:
    """The stacks approved at a commit (`*`: all), and the approvals refused with their reasons."""

    approved: frozenset[str]
    refused: tuple[RefusedApproval, ...] = ()


def _approval_lines(repo: git.Repo, commit: str, notes_ref: str) -> list[dict[str, Any]]:
    try:
        text: str = repo.git.notes(f"--ref={notes_ref}", "show", commit)
    except git.GitCommandError:
        return []
    lines = []
    for raw in text.splitlines():
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue  # a line written by hand that is not ours
        if isinstance(line, dict) and line.get("kind") == "approval" and line.get("commit") == commit:
            lines.append(line)
    return lines


def approvals_of(repo: git.Repo, commit: str, notes_ref: str = APPROVALS_REF) -> frozenset[str]:
    """The stacks approved at `commit` (`*`: all of them), signed or not; empty when nothing is."""
    return frozenset(str(line.get("stack", EVERY_STACK)) for line in _approval_lines(repo, commit, notes_ref))


def checked_approvals(
    repo: git.Repo, commit: str, policy: TrustPolicy | None, notes_ref: str = APPROVALS_REF
) -> CheckedApprovals:
    """The approvals at `commit` that count under `policy` (None: verification is off: all count)."""
    approved: set[str] = set()
    refused: list[RefusedApproval] = []
    for line in _approval_lines(repo, commit, notes_ref):
        stack = str(line.get("stack", EVERY_STACK))
        if policy is not None:
            reason = _refusal(repo, commit, line, policy)
            if reason is not None:
                refused.append(RefusedApproval(stack, str(line.get("by", "unknown")), reason))
                continue
        approved.add(stack)
    return CheckedApprovals(frozenset(approved), tuple(refused))


def _refusal(repo: git.Repo, commit: str, line: Mapping[str, Any], policy: TrustPolicy) -> str | None:
    """Why a line's signature does not count (None: it does)."""
    signed = line.get(SIGNED)
    if not isinstance(signed, str):
        return "not signed (reconciler approve --sign)"
    try:
        raw = base64.b64decode(signed, validate=True)
        with tempfile.TemporaryFile() as body:
            body.write(raw)
            body.seek(0)
            sha: str = repo.git.hash_object("-t", "commit", "-w", "--stdin", istream=body)
        approval = repo.commit(sha)
    except (binascii.Error, git.GitCommandError, ValueError):
        return "the signed approval is not a git commit object"
    unsigned = {key: value for key, value in line.items() if key != SIGNED}
    if [parent.hexsha for parent in approval.parents] != [commit] or _message(approval) != _payload(unsigned):
        return "the signed approval is of another commit or says something else than its line"
    verdict = verify_commit(repo, sha, policy)
    return verdict.reason if isinstance(verdict, Unverified) else None


def _message(approval: git.Commit) -> str:
    message = approval.message
    return (message.decode() if isinstance(message, bytes) else message).strip()


def _payload(line: Mapping[str, Any]) -> str:
    return json.dumps(dict(line), sort_keys=True, separators=(",", ":"))


def approves(approved: frozenset[str], stack: str) -> bool:
    return EVERY_STACK in approved or stack in approved


def record_approval(
    repo: git.Repo, commit: str, stack: str, by: str, at: float, *, sign: bool = False
) -> str:
    """Append an approval of `stack` (or `*`) at `commit`, signed with the approver's git signing
    key when `sign`; the line written (`git.GitCommandError` when git cannot sign)."""
    fields: dict[str, Any] = {"kind": "approval", "commit": commit, "stack": stack, "by": by}
    fields["at"] = round(at, 3)
    if sign:
        fields[SIGNED] = _signed_object(repo, commit, _payload(fields))
    line = _payload(fields)
    try:
        existing: str = repo.git.notes(f"--ref={APPROVALS_REF}", "show", commit)
    except git.GitCommandError:
        existing = ""
    with tempfile.TemporaryFile() as text:
        text.write(((existing.rstrip("\n") + "\n" if existing.strip() else "") + line + "\n").encode())
        text.seek(0)
        repo.git.notes(f"--ref={APPROVALS_REF}", "add", "-f", "-F", "-", commit, istream=text)
    return line


def _signed_object(repo: git.Repo, commit: str, payload: str) -> str:
    """A commit object signed by git (parent `commit`, its tree, message `payload`), base64."""
    sha: str = repo.git.commit_tree("-S", "-p", commit, "-m", payload, f"{commit}^{{tree}}")
    raw: bytes = repo.git.cat_file("commit", sha, stdout_as_string=False, strip_newline_in_stdout=False)
    return base64.b64encode(raw).decode("ascii")
