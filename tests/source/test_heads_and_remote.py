"""Heads of a local repository and of a remote's cached clone; pull-request heads; hook-free fetches."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.source.heads import Heads, read_heads
from reconciler.source.remote_cache import RemoteCache, RemoteUnavailable, looks_like_remote
from reconciler.source.repository import FollowedRepository
from tests.source.git_repos import bare_remote, clone, commit_files, init_repository


def test_local_heads_split_the_tracked_branch_from_pull_requests(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    main = commit_files(repo, {"a": "1\n"})
    repo.create_head("feature/x")
    repo.heads["feature/x"].checkout()
    feature = commit_files(repo, {"a": "2\n"})
    repo.git.update_ref("refs/pull/7/head", feature)

    heads = read_heads(repo, "main")

    assert heads == Heads("main", main, {"feature/x": feature, "pull/7/head": feature})


def test_a_missing_tracked_branch_reads_as_none(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo", branch="develop")
    commit_files(repo, {"a": "1\n"})
    assert read_heads(repo, "main").tracked is None


@pytest.mark.parametrize(
    ("before", "after", "new"),
    [
        ({}, {"pr": "a"}, {"pr": "a"}),
        ({"pr": "a"}, {"pr": "a"}, {}),
        ({"pr": "a"}, {"pr": "b"}, {"pr": "b"}),
        ({"pr": "a", "old": "c"}, {"pr": "a"}, {}),
    ],
)
def test_new_pull_request_heads_are_those_that_appeared_or_moved(
    before: dict[str, str], after: dict[str, str], new: dict[str, str]
) -> None:
    previous = Heads("main", "m", before)
    assert Heads("main", "m", after).new_pull_request_heads(previous) == new


def test_a_cached_clone_fetches_branches_and_pull_request_heads(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    author = clone(remote.working_dir, tmp_path / "author")
    main = commit_files(author, {"a": "1\n"})
    author.git.push("origin", "main")
    author.git.push("origin", "main:refs/pull/3/head")
    cache = RemoteCache(str(remote.working_dir), tmp_path / "cache")

    assert cache.fetch().changed
    assert read_heads(cache.repo, "main", cached_remote=True) == Heads("main", main, {"pull/3/head": main})
    assert not cache.fetch().changed

    newer = commit_files(author, {"a": "2\n"})
    author.git.push("origin", "main")
    assert cache.fetch().changed
    assert read_heads(cache.repo, "main", cached_remote=True).tracked == newer
    # a second RemoteCache on the same root reuses the clone
    assert RemoteCache(str(remote.working_dir), tmp_path / "cache").path == cache.path


def test_an_unreachable_remote_is_a_retryable_outcome_without_the_url(tmp_path: Path) -> None:
    url = "https://user:secret-token@git.invalid/repo.git"
    cache = RemoteCache(str(tmp_path / "missing.git"), tmp_path / "cache")
    with pytest.raises(RemoteUnavailable, match="will retry"):
        cache.fetch()
    assert "secret-token" not in str(RemoteCache(url, tmp_path / "cache").path)


@pytest.mark.parametrize(
    ("location", "remote"),
    [
        ("https://example.com/org/repo.git", True),
        ("git@example.com:org/repo.git", True),
        ("file:///srv/git/repo.git", True),
        ("/srv/git/repo", False),
        ("relative/dir", False),
    ],
)
def test_repo_locations_are_told_apart(location: str, remote: bool) -> None:
    assert looks_like_remote(location) is remote


@pytest.mark.parametrize(
    ("config", "expected"),
    [("branch: production\nstacks: {}\n", "production"), ("stacks: {}\n", "main"), ("[broken\n", "main")],
)
def test_the_initial_branch_is_the_one_the_default_heads_config_names(
    tmp_path: Path, config: str, expected: str
) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    author = clone(remote.working_dir, tmp_path / "author")
    commit_files(author, {"reconciler.yaml": config})
    author.git.push("origin", "main")
    local = FollowedRepository(str(tmp_path / "author"), tmp_path / "cache")
    cached = FollowedRepository(f"file://{remote.working_dir}", tmp_path / "cache")
    cached.refresh()
    assert local.initial_branch() == expected
    assert cached.initial_branch() == expected
