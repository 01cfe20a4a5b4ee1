"""The repository the daemon follows, local or remote, behind one face.

A local path is read in place and watched with watchdog; its notes are written into it. A URL is
cloned into a cache directory, fetched on demand (interval, hook), and its notes are pushed back
with fetch-merge-retry. Either way the daemon asks for `heads()` and reads commits from `repo`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import git

from reconciler.source.config_keys import branch_named_at, default_head
from reconciler.source.heads import Heads, read_heads
from reconciler.source.notes_store import NotesStore, NothingToPush, PushOutcome
from reconciler.source.ref_watcher import RefWatcher
from reconciler.source.remote_cache import Fetched, RemoteCache, looks_like_remote


class RepositoryUnavailable(Exception):
    """The local path is not a git repository (the message names the path)."""


@dataclass(frozen=True)
class LocalRefresh:
    """A local repository needs no fetch: its refs are read directly."""


RefreshOutcome = Fetched | LocalRefresh


class FollowedRepository:
    """A local repository or the cached clone of a remote one."""

    def __init__(self, location: str, cache_root: Path) -> None:
        self.location = location
        self._remote: RemoteCache | None = None
        self._watcher: RefWatcher | None = None
        if looks_like_remote(location):
            self._remote = RemoteCache(location, cache_root)
            self.repo = self._remote.repo
        else:
            try:
                self.repo = git.Repo(location)
            except (git.InvalidGitRepositoryError, git.NoSuchPathError):
                raise RepositoryUnavailable(f"{location}: not a git repository") from None

    @property
    def is_remote(self) -> bool:
        return self._remote is not None

    def refresh(self) -> RefreshOutcome:
        """Fetch a remote (raises `RemoteUnavailable`); nothing to do for a local repository."""
        if self._remote is None:
            return LocalRefresh()
        return self._remote.fetch()

    def heads(self, tracked_branch: str) -> Heads:
        return read_heads(self.repo, tracked_branch, cached_remote=self.is_remote)

    def initial_branch(self) -> str:
        """The branch the default head's `reconciler.yaml` names (`main` when it names none)."""
        return branch_named_at(self.repo, default_head(self.repo, cached_remote=self.is_remote))

    def notes(self, notes_ref: str) -> NotesStore:
        return NotesStore(self.repo, notes_ref)

    def share_notes(self, notes_ref: str) -> PushOutcome:
        """Push the notes ref to the remote (fetch, merge, retry); a local repository keeps them."""
        if self._remote is None:
            return NothingToPush()
        return self.notes(notes_ref).push()

    def watch(self, on_change: Callable[[], None], *, cache_too: bool = False) -> None:
        """Call `on_change` when a local ref moves; with `cache_too`, also a remote's cache refs.

        The process fetching a remote learns of changes from its own fetch; other processes reading
        the same cache (followers of `--workers`) watch it like a local repository.
        """
        if (self._remote is None or cache_too) and self._watcher is None:
            self._watcher = RefWatcher(Path(self.repo.git_dir), on_change)
            self._watcher.start()

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        self.repo.close()
