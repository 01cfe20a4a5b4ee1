"""The ref watcher sees commits, branch creation and `git pack-refs` in a real repository."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from reconciler.source.ref_watcher import RefWatcher
from tests.source.git_repos import commit_files, init_repository

WAIT_SECONDS = 5.0  # an upper bound for inotify delivery; the wait ends at the first event


@pytest.mark.parametrize(
    "change",
    [
        lambda repo: commit_files(repo, {"a": "2\n"}),
        lambda repo: repo.create_head("feature"),
        lambda repo: repo.git.pack_refs("--all"),
        lambda repo: repo.git.update_ref("refs/pull/1/head", "HEAD"),
    ],
    ids=["commit", "new-branch", "pack-refs", "pull-request-ref"],
)
def test_a_ref_change_calls_back(tmp_path: Path, change: Callable[[object], object]) -> None:
    repo = init_repository(tmp_path / "repo")
    commit_files(repo, {"a": "1\n"})
    seen = threading.Event()
    watcher = RefWatcher(Path(repo.git_dir), seen.set)
    watcher.start()
    try:
        change(repo)
        assert seen.wait(WAIT_SECONDS)
    finally:
        watcher.stop()


def test_a_note_being_written_is_not_news(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    sha = commit_files(repo, {"a": "1\n"})
    seen = threading.Event()
    watcher = RefWatcher(Path(repo.git_dir), seen.set)
    watcher.start()
    try:
        repo.git.notes("--ref=refs/notes/reconciler", "add", "-m", "{}", sha)
        assert not seen.wait(1.0)  # a negative: waiting the whole second is the point
    finally:
        watcher.stop()
