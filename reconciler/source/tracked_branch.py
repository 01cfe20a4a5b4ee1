"""Which branch to track before any commit has been read: the one the default head's config names.

`reconciler.yaml` names the tracked branch, but it lives on a branch. At start the daemon reads it
from the repository's default head (a local repository's HEAD, a remote's HEAD) and falls back to
`main`; from then on every tracked commit's own `reconciler.yaml` says which branch comes next.
"""

from __future__ import annotations

import git
import yaml

from reconciler.source.commit_files import CommitFileSource
from reconciler.templates.errors import TemplateError

DEFAULT_BRANCH = "main"
CONFIG_PATH = "reconciler.yaml"
REMOTE_HEAD = "refs/remotes/origin/HEAD"


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
        document = yaml.load(CommitFileSource(repo, commit).read(CONFIG_PATH), Loader=yaml.CSafeLoader)
    except (TemplateError, yaml.YAMLError, ValueError):
        return DEFAULT_BRANCH
    value = document.get("branch") if isinstance(document, dict) else None
    return value if isinstance(value, str) and value else DEFAULT_BRANCH
