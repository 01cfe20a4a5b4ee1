"""`reconciler stacks`: every stack declared on the tracked branch, with its status and commit.

Read from git alone (the notes), so it answers on any clone with the notes fetched, like
`flux get kustomizations`: one row per stack with the commit it is at, when that was noted, and
why it is not CONVERGED when it is not.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from reconciler.cli.commit_argument import open_commit
from reconciler.source.config_keys import branch_named_at, declared_stacks, notes_ref_of
from reconciler.source.note_lines import NoteFormatError, NoteLine
from reconciler.source.stack_positions import stack_positions

COLUMNS = ("STACK", "STATUS", "COMMIT", "NOTED", "REASON")


def _tracked_rev(repo_path: Path, rev: str | None) -> str:
    """`rev`, else the branch HEAD's `reconciler.yaml` tracks (when it exists here), else HEAD."""
    if rev is not None:
        return rev
    repo, files = open_commit(repo_path, "HEAD")
    branch = branch_named_at(repo, files.sha)
    for candidate in (branch, f"origin/{branch}"):
        if candidate in {ref.name for ref in repo.refs}:
            return candidate
    return "HEAD"


def _noted(line: NoteLine) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(line.at)) if line.at else "-"


def _row(line: NoteLine) -> tuple[str, ...]:
    reason = "; ".join(line.failures) or "-"
    return (line.stack, line.status, line.commit[:12], _noted(line), reason)


def _json(line: NoteLine) -> dict[str, object]:
    return {
        "stack": line.stack,
        "status": line.status,
        "commit": line.commit,
        "at": line.at or None,
        "counts": dict(line.counts),
        "reasons": list(line.failures) + [f"{p.file}:{p.line or 0}: {p.message}" for p in line.problems],
    }


@click.command(name="stacks")
@click.option(
    "--repo",
    "repo_path",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The git repository holding the stacks and their notes.",
)
@click.option("--rev", help="The commit to list the stacks of (default: the tracked branch's head).")
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def command(repo_path: Path, rev: str | None, output_format: str) -> None:
    """List every stack with its status and the commit it is at."""
    repo, files = open_commit(repo_path, _tracked_rev(repo_path, rev))
    try:
        positions = stack_positions(repo, notes_ref_of(files), files.sha, declared_stacks(files))
    except NoteFormatError as error:
        raise click.ClickException(f"a note under {notes_ref_of(files)}: {error}") from None
    lines = [positions[name] for name in sorted(positions)]
    if output_format == "json":
        body = {"commit": files.sha, "stacks": [_json(line) for line in lines]}
        click.echo(json.dumps(body, indent=2, sort_keys=True))
        return
    rows = [COLUMNS, *(_row(line) for line in lines)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(COLUMNS) - 1)]
    for row in rows:
        click.echo(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1]
        )
