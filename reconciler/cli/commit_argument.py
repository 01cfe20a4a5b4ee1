"""`REV --repo DIR`: the commit a command reads, the same for `status` and `plan`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import git

from reconciler.source.commit_files import CommitFileSource

F = TypeVar("F", bound=Callable[..., Any])


def commit_argument(repo_help: str) -> Callable[[F], F]:
    """The `REV` argument (default HEAD) and the `--repo` option holding it."""

    def decorate(command: F) -> F:
        command = click.option(
            "--repo",
            "repo_path",
            type=click.Path(exists=True, file_okay=False, path_type=Path),
            default=Path("."),
            show_default=True,
            help=repo_help,
        )(command)
        return click.argument("rev", default="HEAD")(command)

    return decorate


def open_commit(repo_path: Path, rev: str) -> tuple[git.Repo, CommitFileSource]:
    """The repository and the commit `rev` in it; a clear error when either is not there."""
    try:
        repo = git.Repo(repo_path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise click.ClickException(f"{repo_path}: not a git repository") from None
    try:
        return repo, CommitFileSource(repo, rev)
    except (git.BadName, ValueError):
        raise click.ClickException(f"{rev}: no such commit in {repo_path}") from None
