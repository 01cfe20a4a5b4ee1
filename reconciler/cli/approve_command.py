"""`reconciler approve REV [--stack S]`: approve the replacements and deletions a commit waits on.

The approval is a line in the note of REV under `refs/notes/reconciler-approvals`: push it
(`git push origin refs/notes/reconciler-approvals`) for a daemon following a remote; a daemon on
this repository sees it at its next pass. With `--sign` it carries a git signature made with the
approver's signing key (as `git commit -S` would); a repository with `verify:` counts only those.
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
@click.option(
    "--sign",
    "-S",
    is_flag=True,
    help="Sign the approval with your git signing key (user.signingkey, gpg.format), as `git commit -S`.",
)
def command(rev: str, repo_path: Path, stack: str | None, sign: bool) -> None:
    """Approve the replacements and deletions REV waits on."""
    repo, files = open_commit(repo_path, rev)
    if stack is not None and stack not in declared_stacks(files):
        raise click.ClickException(f"{files.sha[:12]} declares no stack named {stack!r}")
    try:
        record_approval(repo, files.sha, stack or EVERY_STACK, _approver(repo), time.time(), sign=sign)
    except git.GitCommandError as error:
        said = (error.stderr or "").strip().splitlines()
        raise click.ClickException(
            f"git could not sign the approval ({said[-1] if said else 'no reason given'}): "
            "set user.signingkey (and gpg.format ssh for an SSH key)"
        ) from None
    what = ("a signed approval of " if sign else "") + (f"stack {stack}" if stack else "every stack")
    click.echo(f"approved {what} at {files.sha[:12]} (under {APPROVALS_REF}; push it for a remote daemon)")
