"""`reconciler plan`: show what a commit would change, without applying it.

Every stack of the commit's `reconciler.yaml` is loaded from the commit itself (not the working
tree) and diffed against what the state store recorded; nothing touches a cloud.
"""

from __future__ import annotations

from pathlib import Path

import click

from reconciler.cli.commit_argument import commit_argument, open_commit
from reconciler.cli.database_option import database_option, state_directory
from reconciler.daemon.clouds import CloudRoot, sim_cloud_path
from reconciler.daemon.collector import collector_paused, tune_process
from reconciler.daemon.plan_notes import plan_for_stack
from reconciler.daemon.software_records import stored_software
from reconciler.daemon.state_key import state_sealer
from reconciler.daemon.stored_blocks import StoredBlocks
from reconciler.source.note_lines import PLAN, REPOSITORY_SCOPE, NoteLine
from reconciler.source.note_rendering import RENDERERS
from reconciler.source.revisions import InvalidCommit, read_commit_config
from reconciler.templates import DocumentCache
from state import StackStatus, open_store
from timekeeping import SystemClock

EXIT_NOTHING_CHANGES = 0
EXIT_INVALID = 1  # an error: a broken commit or stack, or one no cloud here can build
EXIT_CHANGES = 2  # something would change (as `terraform plan -detailed-exitcode` says it)


@click.command(name="plan")
@commit_argument("The git repository holding the commit.")
@database_option()
@click.option(
    "--format", "output_format", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True
)
def command(rev: str, repo_path: Path, database: str, output_format: str) -> None:
    """Compute and print the plan of REV (default HEAD) against the recorded state, applying nothing.

    Exit 0 when nothing would change, 2 when something would, 1 on an error."""
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
    # the sealer opens hidden values at rest, so a plan compares them as apply does
    store = open_store(url, clock=clock, sealer=state_sealer(url, state_directory()))
    clouds = CloudRoot(clock, sim_path=sim_cloud_path(url), software=stored_software(store))
    # the templates' resources parsed before (by any process) are not parsed again
    documents = DocumentCache(blocks=StoredBlocks(store.template_blocks()))
    tune_process()
    try:
        # a plan builds large long-lived graphs (definitions, records) and frees them at exit:
        # cyclic collections meanwhile would only walk them again and again
        with collector_paused():
            lines = [
                plan_for_stack(
                    files,
                    spec,
                    store,
                    clouds.for_cloud(spec.cloud),
                    at=clock.now(),
                    writer="plan",
                    documents=documents,
                )
                for wave in read.waves
                for spec in (read.config.stacks[name] for name in wave)
            ]
    finally:
        store.close()
    click.echo(RENDERERS[output_format](files.sha, lines), nl=False)
    raise SystemExit(plan_exit_status(lines))


def plan_exit_status(lines: list[NoteLine]) -> int:
    """1 when any stack cannot be planned as it is, else 2 when anything would change, else 0."""
    if any(line.status in (StackStatus.INVALID, StackStatus.FAILED) for line in lines):
        return EXIT_INVALID
    if any(line.plan is None or line.plan.changes for line in lines):
        return EXIT_CHANGES  # a stack waiting for its upstream's outputs will change too
    return EXIT_NOTHING_CHANGES
