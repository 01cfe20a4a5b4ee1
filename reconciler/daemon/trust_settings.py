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
from reconciler.source.signatures import TrustPolicy


def anchor_file(state_dir: Path, location: str) -> Path:
    """Where the last verified commit of the repository at `location` is kept (no URL in the path)."""
    return state_dir / "trust" / f"{hashlib.sha256(location.encode('utf-8')).hexdigest()[:24]}.verified"


def pinned_trust(settings: DaemonSettings) -> TrustPolicy | None:
    """The policy the settings pin (None: none); `SettingsError` when a file is unreadable, so a
    daemon that cannot know whom to trust stops at start."""
    try:
        return pinned_policy(settings.verify_allowed_signers, settings.verify_gpg_keyring)
    except OSError as error:
        raise SettingsError(
            f"verify_allowed_signers / verify_gpg_keyring: {error.filename}: cannot be read: {error.strerror}"
        ) from None


def commit_trust(
    settings: DaemonSettings, repo: git.Repo, state_dir: Path, pinned: TrustPolicy | None
) -> CommitTrust:
    """The trust of the daemon's repository, its anchor kept in `state_dir`."""
    return CommitTrust(repo, anchor_file(state_dir, settings.repo), pinned)
