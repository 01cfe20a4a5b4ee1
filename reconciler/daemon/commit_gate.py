"""The trust policy applied to what the daemon follows: tracked commits and approvals.

`CommitGate` sits between the branch and the GitOps loop. Of the commits a push brings it hands
on the newest one signed as the policy requires (`reconciler.source.commit_trust`), and writes
the note lines of the others: UNVERIFIED with the reason, or SUPERSEDED by the one taken. Git
checks each signature in tens of milliseconds, so `check_ahead` does it before the engine's lock
is taken and `admitted` uses that result. Approvals of a waiting stack count only when signed by a
trusted key while verification is on; each refused one is logged and noted once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import git

from reconciler.daemon.note_recorder import NoteRecorder
from reconciler.source.approvals import RefusedApproval, approves, checked_approvals
from reconciler.source.commit_trust import Admission, CommitTrust
from reconciler.source.note_lines import REPOSITORY_SCOPE, NoteLine
from reconciler.source.skipped_commits import skipped_commits
from state import StackStatus

LOG = logging.getLogger(__name__)
UNVERIFIED = "UNVERIFIED"  # a commit's note when it is not signed as the trust policy requires


class CommitGate:
    """Admits tracked commits and approvals through one `CommitTrust`."""

    def __init__(self, repo: git.Repo, trust: CommitTrust, notes: NoteRecorder) -> None:
        self.repo = repo
        self.trust = trust
        self.notes = notes
        self._ahead: tuple[str, str, Admission] | None = None  # (read before, tracked, admission)
        self._refusals_noted: set[tuple[str, RefusedApproval]] = set()

    def check_ahead(self, read_before: str | None, tracked: str | None) -> None:
        """Check the commits after `read_before` up to `tracked` now, for `admitted` to use."""
        if read_before is not None and tracked is not None and tracked != read_before:
            self._ahead = (read_before, tracked, self._admission(read_before, tracked))

    def admitted(self, read_before: str | None, commit: str, *, leader: bool, restarting: bool) -> str | None:
        """The commit to converge to of those up to `commit`: the newest one signed as required
        (None: none is, and the stacks stay where they are); at a start (`restarting`) with none,
        the last verified commit. The others are noted (by the leader)."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[:2] == (read_before, commit):
            admission = ahead[2]
        else:
            admission = self._admission(read_before, commit)
        for refused, reason in admission.unverified:
            LOG.warning("commit %s is UNVERIFIED: %s; nothing of it applied", refused[:12], reason)
        if leader:
            self.notes.record(self._lines(admission))
        if admission.take is None and restarting:
            return self.trust.anchor
        return admission.take

    def approved(self, stack: str, commit: str, holds: Callable[[str], bool]) -> bool:
        """Whether `stack` is approved at `commit` by an approval that counts; refusals noted once."""
        checked = checked_approvals(self.repo, commit, self.trust.approval_policy())
        lines = []
        for refusal in checked.refused:
            if not approves(frozenset({refusal.stack}), stack) or (commit, refusal) in self._refusals_noted:
                continue
            self._refusals_noted.add((commit, refusal))
            text = f"approval by {refusal.by} refused: {refusal.reason}"
            LOG.warning("stack %s at %s: %s", stack, commit[:12], text)
            if holds(stack):
                lines.append(
                    self.notes.convergence(stack, commit, StackStatus.PENDING_APPROVAL, failures=(text,))
                )
        self.notes.record(lines)
        return approves(checked.approved, stack)

    def _admission(self, read_before: str | None, commit: str) -> Admission:
        """Admit the commits after `read_before` up to `commit`; at a start under a policy, those
        after the last verified commit, so a key rotated while the daemon was down holds."""
        if read_before is None and self.trust.approval_policy() is not None:
            read_before = self.trust.anchor
        between = skipped_commits(self.repo, read_before, commit) if read_before else []
        return self.trust.admit([*between, commit])

    def _lines(self, admission: Admission) -> list[NoteLine]:
        lines = [
            self.notes.convergence(REPOSITORY_SCOPE, refused, UNVERIFIED, failures=(reason,))
            for refused, reason in admission.unverified
        ]
        if admission.take is not None:
            reason = f"superseded by {admission.take[:12]} before it was read"
            lines.extend(
                self.notes.convergence(REPOSITORY_SCOPE, older, StackStatus.SUPERSEDED, failures=(reason,))
                for older in admission.passed_over
            )
        return lines
