"""`reconciler approve REV [--stack S]`: approve the replacements and deletions a commit waits on.

The approval is a line in the note of REV under `refs/notes/reconciler-approvals`, signed by
nothing but the git identity writing it: push it (`git push origin refs/notes/reconciler-approvals`)
for a daemon following a remote; a daemon on this repository sees it at its next pass.
"""

from __future__ import annotations

import time
from pathlib import Path

import click
import git

from reconciler.cli.commit_argument import commit_argument, open_commit
from reconciler.source.approvals import APPROVALS_REF, EVERY_STACK, record_approval
from reconciler.source.config_keys import declared_stacks


def _approver(repo: git.Repo) -> str:
    reader = repo.config_reader()
    name = str(reader.get_value("user", "name", "")) if reader.has_option("user", "name") else ""
    email = str(reader.get_value("user", "email", "")) if reader.has_option("user", "email") else ""
    return f"{name} <{email}>".strip() if name or email else "unknown"


@click.command(name="approve")
@commit_argument("The git repository holding the commit.")
@click.option("--stack", help="Approve this stack only (default: every stack of the commit).")
def command(rev: str, repo_path: Path, stack: str | None) -> None:
    """Approve the replacements and deletions REV waits on."""
    repo, files = open_commit(repo_path, rev)
    if stack is not None and stack not in declared_stacks(files):
        raise click.ClickException(f"{files.sha[:12]} declares no stack named {stack!r}")
    record_approval(repo, files.sha, stack or EVERY_STACK, _approver(repo), time.time())
    what = f"stack {stack}" if stack else "every stack"
    click.echo(f"approved {what} at {files.sha[:12]} (under {APPROVALS_REF}; push it for a remote daemon)")
