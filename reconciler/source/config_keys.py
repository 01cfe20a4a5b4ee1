"""Single keys of a commit's `reconciler.yaml`, read without validating the whole file.

Two things are needed before (or without) a valid configuration: which branch to track at start,
and which notes ref holds a commit's notes. A commit whose `reconciler.yaml` is broken still has
its INVALID note under the default ref, which is where the daemon wrote it. The tracked branch at
start is the one the repository's default head (a local HEAD, a remote's HEAD) names; from then on
every tracked commit's own `reconciler.yaml` says which branch comes next.
"""

from __future__ import annotations

from typing import Any

import git
import yaml

from reconciler.source.commit_files import CommitFileSource
from reconciler.source.notes_store import DEFAULT_NOTES_REF
from reconciler.templates.errors import TemplateError

CONFIG_PATH = "reconciler.yaml"
DEFAULT_BRANCH = "main"
REMOTE_HEAD = "refs/remotes/origin/HEAD"


def _key(files: CommitFileSource, key: str) -> Any:
    try:
        document = yaml.load(files.read(CONFIG_PATH), Loader=yaml.CSafeLoader)
    except (TemplateError, yaml.YAMLError):
        return None
    return document.get(key) if isinstance(document, dict) else None


def notes_ref_of(files: CommitFileSource) -> str:
    """The notes ref the commit's `reconciler.yaml` names, or `refs/notes/reconciler`."""
    value = _key(files, "notes_ref")
    return value if isinstance(value, str) and value.startswith("refs/notes/") else DEFAULT_NOTES_REF


def declared_stacks(files: CommitFileSource) -> list[str]:
    """The stack names the commit's `reconciler.yaml` declares (none when it is unreadable)."""
    stacks = _key(files, "stacks")
    return sorted(str(name) for name in stacks) if isinstance(stacks, dict) else []


def default_head(repo: git.Repo, *, cached_remote: bool) -> str | None:
    """The commit of the repository's default head, or None (empty repository, unknown HEAD)."""
    try:
        return repo.git.rev_parse("--verify", "--quiet", REMOTE_HEAD if cached_remote else "HEAD") or None
    except git.GitCommandError:
        return None


def branch_named_at(repo: git.Repo, commit: str | None) -> str:
    """The `branch` of `commit`'s `reconciler.yaml`, or `main` when it names none (or is unreadable)."""
    if commit is None:
        return DEFAULT_BRANCH
    try:
        files = CommitFileSource(repo, commit)
    except (git.BadName, ValueError):
        return DEFAULT_BRANCH
    value = _key(files, "branch")
    return value if isinstance(value, str) and value else DEFAULT_BRANCH
