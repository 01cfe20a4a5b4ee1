"""Reading templates straight from a commit's tree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reconciler.source.commit_files import CommitFileSource
from reconciler.templates.errors import TemplateError
from tests.source.git_repos import commit_files, init_repository


@pytest.fixture
def source(tmp_path: Path) -> CommitFileSource:
    repo = init_repository(tmp_path / "repo")
    root = tmp_path / "repo"
    (root / "stacks").mkdir()
    (root / "stacks" / "t.yaml").write_text("v1\n")
    os.symlink("t.yaml", root / "stacks" / "alias.yaml")
    os.symlink("../../outside", root / "stacks" / "escape.yaml")
    repo.index.add(["stacks/t.yaml", "stacks/alias.yaml", "stacks/escape.yaml"])
    sha = repo.index.commit("first").hexsha
    commit_files(repo, {"stacks/t.yaml": "v2 uncommitted-later\n"})  # a later commit must not leak
    return CommitFileSource(repo, sha)


def test_reads_the_committed_bytes_of_that_commit(source: CommitFileSource) -> None:
    assert source.read("stacks/t.yaml") == b"v1\n"
    assert source.read("stacks/../stacks/t.yaml") == b"v1\n"


def test_follows_a_symlink_inside_the_tree(source: CommitFileSource) -> None:
    assert source.read("stacks/alias.yaml") == b"v1\n"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("stacks/missing.yaml", "file not found in commit"),
        ("stacks", "is a directory"),
        ("../etc/passwd", "escapes the repository tree"),
        ("/etc/passwd", "escapes the repository tree"),
        ("stacks/escape.yaml", "escapes the repository tree"),
    ],
)
def test_refuses_what_is_not_a_file_of_the_tree(source: CommitFileSource, path: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message) as refused:
        source.read(path)
    assert refused.value.problems[0].file == path


def test_names_a_file_by_its_blob_id_through_symlinks(source: CommitFileSource) -> None:
    """The blob id comes from the tree: a symlink names the blob it leads to, as git hashes it."""
    blob = source.blob_id("stacks/t.yaml")
    assert blob == source.commit.tree["stacks/t.yaml"].hexsha
    assert source.blob_id("stacks/alias.yaml") == blob
    with pytest.raises(TemplateError):
        source.blob_id("stacks/escape.yaml")
