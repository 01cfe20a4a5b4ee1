"""`reconciler plan`: show what a commit would change, without applying it.

Every stack of the commit's `reconciler.yaml` is loaded from the commit itself (not the working
tree) and diffed against what the state store recorded; nothing touches a cloud.
"""

from __future__ import annotations

from pathlib import Path

import click

from reconciler.cli.commit_argument import commit_argument, open_commit
from reconciler.cli.database_option import database_option
from reconciler.daemon.clouds import CloudRoot, sim_cloud_path
from reconciler.daemon.plan_notes import plan_for_stack
from reconciler.daemon.software_records import stored_software
from reconciler.source.note_lines import PLAN, REPOSITORY_SCOPE, NoteLine
from reconciler.source.note_rendering import RENDERERS
from reconciler.source.revisions import InvalidCommit, read_commit_config
from state import StackStatus, open_store
from timekeeping import SystemClock

EXIT_INVALID = 1


@click.command(name="plan")
@commit_argument("The git repository holding the commit.")
@database_option()
@click.option(
    "--format", "output_format", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True
)
def command(rev: str, repo_path: Path, database: str, output_format: str) -> None:
    """Compute and print the plan of REV (default HEAD) against the recorded state, applying nothing."""
    _, files = open_commit(repo_path, rev)
    clock = SystemClock()
    read = read_commit_config(files)
    if isinstance(read, InvalidCommit):
        line = NoteLine(
            kind=PLAN,
            stack=REPOSITORY_SCOPE,
            commit=files.sha,
            status=StackStatus.INVALID,
            at=clock.now(),
            problems=read.problems,
        )
        click.echo(RENDERERS[output_format](files.sha, [line]), nl=False)
        raise SystemExit(EXIT_INVALID)
    url = database
    store = open_store(url, clock=clock)
    clouds = CloudRoot(clock, sim_path=sim_cloud_path(url), software=stored_software(store))
    try:
        lines = [
            plan_for_stack(files, spec, store, clouds.for_cloud(spec.cloud), at=clock.now(), writer="plan")
            for wave in read.waves
            for spec in (read.config.stacks[name] for name in wave)
        ]
    finally:
        store.close()
    click.echo(RENDERERS[output_format](files.sha, lines), nl=False)
    if any(line.status == StackStatus.INVALID for line in lines):
        raise SystemExit(EXIT_INVALID)
