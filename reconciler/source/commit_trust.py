"""Which tracked commits may be applied: signed by a key the last verified commit trusts.

A commit never chooses who verifies it. The policy that checks a commit is, in order:

1. the daemon's own settings (`verify_allowed_signers`, `verify_gpg_keyring`: files outside the
   repository), when set: git cannot change them at all;
2. else the `verify:` block of the last commit this daemon admitted (its trust anchor, kept in
   the state directory across restarts): a commit that removes `verify:` or adds a signer is
   checked against the signers before it, so only a trusted signer can change who is trusted;
3. else, when the daemon has admitted nothing yet, the commit's own `verify:` (trust on first
   use: pin the policy in the settings to avoid it).

An admitted commit whose `reconciler.yaml` is valid becomes the anchor. Commits are admitted one
after the other, oldest first, so a push that rotates keys and then uses the new key works.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import git

from reconciler.source.commit_files import CommitFileSource
from reconciler.source.config_keys import CONFIG_PATH
from reconciler.source.revisions import CommitConfig, read_commit_config
from reconciler.source.signatures import TrustPolicy, Unverified, Verdict, Verified, verify_commit
from reconciler.templates import TemplateError
from reconciler.templates.repository_config import VerifyConfig


@dataclass(frozen=True)
class NotRequired:
    """No policy is in force: the commit is applied whoever signed it."""


@dataclass(frozen=True)
class Admission:
    """What became of the commits of one push, oldest first."""

    take: str | None  # the newest admitted commit: the one to converge to (None: none was admitted)
    unverified: tuple[tuple[str, str], ...] = ()  # (commit, reason) of each refused one
    passed_over: tuple[str, ...] = ()  # admitted commits older than `take`: superseded by it


def policy_at(repo: git.Repo, commit: str, verify: VerifyConfig) -> TrustPolicy:
    """The trust policy `verify` names, its files read from `commit` (a missing file trusts no key)."""
    files = CommitFileSource(repo, commit)

    def content(path: str | None) -> bytes | None:
        if path is None:
            return None
        try:
            return files.read(path)
        except TemplateError:
            return b""

    named = " and ".join(path for path in (verify.allowed_signers, verify.gpg_keyring) if path)
    return TrustPolicy(
        allowed_signers=content(verify.allowed_signers),
        gpg_keyring=content(verify.gpg_keyring),
        source=f"verify ({named}) of reconciler.yaml at {commit[:12]}",
    )


def pinned_policy(allowed_signers: str | None, gpg_keyring: str | None) -> TrustPolicy | None:
    """The policy the daemon's settings pin (files outside the repository), or None."""
    if allowed_signers is None and gpg_keyring is None:
        return None
    named = " and ".join(path for path in (allowed_signers, gpg_keyring) if path)
    return TrustPolicy(
        allowed_signers=Path(allowed_signers).read_bytes() if allowed_signers else None,
        gpg_keyring=Path(gpg_keyring).read_bytes() if gpg_keyring else None,
        source=f"the daemon's settings ({named})",
    )


def _names_files_of(files: CommitFileSource, verify: VerifyConfig) -> bool:
    """Whether every file `verify` names is in the commit of `files`."""
    try:
        for path in (verify.allowed_signers, verify.gpg_keyring):
            if path is not None:
                files.blob_id(path)
    except TemplateError:
        return False
    return True


class CommitTrust:
    """Admits tracked commits against the policy of the last admitted one."""

    def __init__(self, repo: git.Repo, anchor_file: Path | None, pinned: TrustPolicy | None = None) -> None:
        self.repo = repo
        self.anchor_file = anchor_file
        self.pinned = pinned
        self.anchor = self._read_anchor()
        self._anchor_policy: tuple[str, TrustPolicy | None] | None = None
        self._blocks: dict[str, tuple[bool, VerifyConfig | None]] = {}  # reconciler.yaml blob -> read

    def policy(self, own: VerifyConfig | None = None, commit: str | None = None) -> TrustPolicy | None:
        """The policy in force now (None: verification is off); `own`: the checked commit's block,
        used only when nothing was admitted before it."""
        if self.pinned is not None:
            return self.pinned
        if self.anchor is not None:
            return self._policy_of_anchor(self.anchor)
        if own is not None and commit is not None:
            return policy_at(self.repo, commit, own)
        return None

    def approval_policy(self) -> TrustPolicy | None:
        """The policy approvals are checked against: the one commits are (None: verification is off)."""
        try:
            return self.policy()
        except AnchorMissing as error:
            return TrustPolicy(allowed_signers=None, gpg_keyring=None, source=str(error))

    def check(self, commit: str, own: VerifyConfig | None) -> Verdict | NotRequired:
        try:
            policy = self.policy(own, commit)
        except AnchorMissing as error:
            return Unverified(str(error))
        if policy is None:
            return NotRequired()
        return verify_commit(self.repo, commit, policy)

    def admit(self, commits: Sequence[str]) -> Admission:
        """Check `commits` (oldest first) one after the other; each admitted valid one becomes the anchor."""
        unverified: list[tuple[str, str]] = []
        admitted: list[str] = []
        for commit in commits:
            if commit == self.anchor:  # admitted before (a restart): its own policy may not hold it
                admitted.append(commit)
                continue
            valid, own = self._verify_block(commit)
            verdict = self.check(commit, own)
            if isinstance(verdict, Unverified):
                unverified.append((commit, verdict.reason))
                continue
            admitted.append(commit)
            if valid:
                self._set_anchor(commit)
        take = admitted[-1] if admitted else None
        return Admission(take, tuple(unverified), tuple(admitted[:-1]))

    def _verify_block(self, commit: str) -> tuple[bool, VerifyConfig | None]:
        """Whether the commit's `reconciler.yaml` is valid, and its `verify:`; read once per version
        of the file (a push of many commits mostly repeats it), the named files looked up each time."""
        files = CommitFileSource(self.repo, commit)
        try:
            blob = files.blob_id(CONFIG_PATH)
        except TemplateError:
            return False, None
        known = self._blocks.get(blob) if blob is not None else None
        if known is None:
            read = read_commit_config(files)
            if not isinstance(read, CommitConfig):
                return False, None  # not kept: it may be invalid only for a file missing in this commit
            known = (True, read.config.verify)
            if blob is not None:
                self._blocks[blob] = known
            return known
        valid, verify = known
        if valid and verify is not None and not _names_files_of(files, verify):
            return False, None
        return known

    def _policy_of_anchor(self, anchor: str) -> TrustPolicy | None:
        if self._anchor_policy is not None and self._anchor_policy[0] == anchor:
            return self._anchor_policy[1]
        try:
            valid, verify = self._verify_block(anchor)
        except (ValueError, git.BadName):
            raise AnchorMissing(anchor) from None
        if not valid:
            raise AnchorMissing(anchor)
        policy = policy_at(self.repo, anchor, verify) if verify is not None else None
        self._anchor_policy = (anchor, policy)
        return policy

    def _read_anchor(self) -> str | None:
        if self.anchor_file is None:
            return None
        try:
            text = self.anchor_file.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return text or None

    def _set_anchor(self, commit: str) -> None:
        self.anchor = commit
        if self.anchor_file is None:
            return
        self.anchor_file.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=self.anchor_file.parent, prefix=".anchor-", delete=False, encoding="ascii"
        ) as written:
            written.write(commit + "\n")
        os.replace(written.name, self.anchor_file)


class AnchorMissing(Exception):
    """The last admitted commit cannot be read any more, so no policy can be trusted."""

    def __init__(self, anchor: str) -> None:
        super().__init__(
            f"the last verified commit {anchor[:12]} cannot be read from the repository, so its "
            "verify policy is unknown; pin the policy in the daemon's settings or restore the commit"
        )


__all__ = ["Admission", "AnchorMissing", "CommitTrust", "NotRequired", "Verified", "pinned_policy"]
