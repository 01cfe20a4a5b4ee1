"""Real git repositories for tests: a working repository, commits from a dict of files, a bare remote."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import git

IDENTITY = {"name": "Test Author", "email": "author@example.invalid"}


def init_repository(path: Path, branch: str = "main") -> git.Repo:
    """An empty working repository on `branch` with a committer identity."""
    repo = git.Repo.init(path, initial_branch=branch)
    with repo.config_writer() as config:
        config.set_value("user", "name", IDENTITY["name"])
        config.set_value("user", "email", IDENTITY["email"])
    return repo


def commit_files(repo: git.Repo, files: Mapping[str, str | None], message: str = "change") -> str:
    """Write (or, for None, delete) `files` and commit them; the new commit's sha."""
    root = Path(repo.working_tree_dir or ".")
    for name, text in files.items():
        target = root / name
        if text is None:
            repo.index.remove([name], working_tree=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        repo.index.add([name])
    return repo.index.commit(message).hexsha


def bare_remote(path: Path) -> git.Repo:
    """A bare repository to push to, as a hosting service would hold."""
    return git.Repo.init(path, bare=True, initial_branch="main")


def clone(url: str | os.PathLike[str], path: Path) -> git.Repo:
    """A working clone of `url` with a committer identity."""
    repo = git.Repo.clone_from(url, path)
    with repo.config_writer() as config:
        config.set_value("user", "name", IDENTITY["name"])
        config.set_value("user", "email", IDENTITY["email"])
    return repo
