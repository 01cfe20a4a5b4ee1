"""The daemon's commit trust: the policy its settings pin, and where it keeps its trust anchor.

The anchor (the last commit admitted) is kept in the state directory, one file per repository
location, so a restart goes on from the policy of the last verified commit rather than trusting
whatever the branch holds at start. `docs/operations.md` says where the policy comes from.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import git

from reconciler.daemon.settings import DaemonSettings, SettingsError
from reconciler.source.commit_trust import CommitTrust, pinned_policy


def anchor_file(state_dir: Path, location: str) -> Path:
    """Where the last verified commit of the repository at `location` is kept (no URL in the path)."""
    return state_dir / "trust" / f"{hashlib.sha256(location.encode('utf-8')).hexdigest()[:24]}.verified"


def commit_trust(settings: DaemonSettings, repo: git.Repo, state_dir: Path) -> CommitTrust:
    """The trust of the daemon's repository; `SettingsError` when a pinned policy file is unreadable."""
    try:
        pinned = pinned_policy(settings.verify_allowed_signers, settings.verify_gpg_keyring)
    except OSError as error:
        raise SettingsError(
            f"verify_allowed_signers / verify_gpg_keyring: {error.filename}: cannot be read: {error.strerror}"
        ) from None
    return CommitTrust(repo, anchor_file(state_dir, settings.repo), pinned)
