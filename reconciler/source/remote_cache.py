"""A remote repository's cached clone: bare, one per URL, fetched on an interval and on a hook.

The cache holds branches under `refs/remotes/origin/*` and pull-request heads under
`refs/remotes/origin/pull/*/head`; notes are fetched and merged by `NotesStore`, never overwritten.
The directory name is a digest of the URL, so credentials in a URL never appear in a path.
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass
from pathlib import Path

import git

FETCH_REFSPECS = (
    "+refs/heads/*:refs/remotes/origin/*",
    "+refs/pull/*/head:refs/remotes/origin/pull/*/head",
    # approvals of destructive actions (reconciler.source.approvals); a pattern, so a remote
    # without the ref fetches fine
    "+refs/notes/reconciler-approval*:refs/notes/reconciler-approval*",
)


class RemoteUnavailable(Exception):
    """The remote could not be fetched: retry at the next interval (the message names the cache)."""


@dataclass(frozen=True)
class Fetched:
    """A fetch finished; `changed` says whether any head moved."""

    changed: bool


def cache_directory(cache_root: Path, url: str) -> Path:
    """Where the clone of `url` lives under `cache_root`."""
    return cache_root / hashlib.sha256(url.encode("utf-8")).hexdigest()[:24]


def looks_like_remote(location: str) -> bool:
    """Whether `--repo` names a remote URL rather than a local directory."""
    return "://" in location or (":" in location.split("/", maxsplit=1)[0] and not Path(location).exists())


class RemoteCache:
    """The cached clone of one remote URL."""

    def __init__(self, url: str, cache_root: Path) -> None:
        self.url = url
        self.path = cache_directory(cache_root, url)
        self.repo = self._open_or_create()

    def _open_or_create(self) -> git.Repo:
        if (self.path / "HEAD").exists():
            repo = git.Repo(self.path)
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            repo = git.Repo.init(self.path, bare=True)
            repo.create_remote("origin", self.url)
        # A service has no one to answer a password prompt: missing credentials fail at once.
        repo.git.update_environment(GIT_TERMINAL_PROMPT="0")
        return repo

    def fetch(self) -> Fetched:
        """Fetch every branch and pull-request head; `RemoteUnavailable` when the remote fails."""
        before = self._ref_listing()
        try:
            self.repo.git.fetch("--prune", "--quiet", "origin", *FETCH_REFSPECS)
        except git.GitCommandError as error:
            raise RemoteUnavailable(
                f"fetching into {self.path} failed (exit {error.status}); will retry"
            ) from error
        self._learn_default_head()
        return Fetched(changed=self._ref_listing() != before)

    def _learn_default_head(self) -> None:
        """Record the remote's HEAD as refs/remotes/origin/HEAD once (it names the default branch)."""
        try:
            self.repo.git.rev_parse("--verify", "--quiet", "refs/remotes/origin/HEAD")
        except git.GitCommandError:
            with contextlib.suppress(git.GitCommandError):  # no HEAD there: the daemon assumes `main`
                self.repo.git.remote("set-head", "origin", "--auto")

    def _ref_listing(self) -> str:
        listing: str = self.repo.git.for_each_ref("--format=%(objectname) %(refname)", "refs/remotes")
        return listing
