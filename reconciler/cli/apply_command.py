"""`reconciler apply`: converge the repository's HEAD once and exit.

Stacks are converged wave by wave in the order their `from_stack` wiring sets, each on the cloud
its `reconciler.yaml` entry names. Exit 0 when every stack is CONVERGED, 1 otherwise, after printing
each stack's status and failures. Running it again on the same commit changes nothing. While it
converges it prints each stack's counts as they change (in place on a terminal).
"""

from __future__ import annotations

import functools
import os
import socket
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import git

from reconciler.cli.apply_progress import ApplyProgress
from reconciler.cli.database_option import database_option, state_directory
from reconciler.cli.shared_options import timeout_option
from reconciler.daemon.clouds import CloudRoot, sim_cloud_path
from reconciler.daemon.collector import tune_process
from reconciler.daemon.memo_records import keep_plan_memo
from reconciler.daemon.software_records import stored_software
from reconciler.daemon.state_key import state_sealer
from reconciler.daemon.stored_blocks import StoredBlocks
from reconciler.engine import Engine, EngineSettings, SoleWorkerLeases, StackReport
from reconciler.engine.repository_apply import apply_repository
from reconciler.engine.stack_status import AT_REST
from reconciler.templates import DirectorySource, TemplateError
from state.store import Store, open_store
from state.workers import WorkerIdentity
from timekeeping import SystemClock

F = TypeVar("F", bound=Callable[..., Any])

UNCOMMITTED = "uncommitted"  # what a dirty working tree applied with --allow-dirty is recorded as
DIRTY_SHOWN = 10  # changed paths named in the refusal


def commit_of(repo: Path, *, allow_dirty: bool = False) -> str:
    """The HEAD commit the working tree holds, "uncommitted" for changes applied with
    `allow_dirty`, or "working-tree" for a plain directory.

    A dirty tree is refused otherwise: what would be applied is not what the commit id says.
    """
    try:
        repository = git.Repo(repo, search_parent_directories=False)
        head = repository.head.commit.hexsha
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError):
        return "working-tree"
    changed = dirty_paths(repository)
    if not changed:
        return head
    if allow_dirty:
        return UNCOMMITTED
    shown = ", ".join(changed[:DIRTY_SHOWN]) + (
        f" and {len(changed) - DIRTY_SHOWN} more" if len(changed) > DIRTY_SHOWN else ""
    )
    raise click.ClickException(
        f"{repo}: the working tree has uncommitted changes ({shown}); commit them, or apply them "
        f"with --allow-dirty (recorded as {UNCOMMITTED}, not under {head[:12]})"
    )


def dirty_paths(repository: git.Repo) -> list[str]:
    """Paths changed against HEAD (staged or not) and untracked files, sorted."""
    changed = {item.a_path for item in repository.index.diff(None)}
    changed |= {item.a_path for item in repository.index.diff("HEAD")}
    changed |= set(repository.untracked_files)
    return sorted(path for path in changed if path)


def print_report(report: StackReport) -> None:
    counts = report.counts
    click.echo(
        f"{report.stack}: {report.status.value} at {(report.commit or '-')[:12]} "
        f"(created {counts.created}, updated {counts.updated}, replaced {counts.replaced}, "
        f"deleted {counts.deleted}, unchanged {counts.unchanged})"
    )
    for failure in report.failures:
        click.echo(f"  {failure}")
    for kept in report.kept:
        click.echo(f"  kept: {kept}")


def _converge(
    store: Store, engine: Engine, repo: Path, leases: SoleWorkerLeases, *, timeout: float, commit: str
) -> dict[str, StackReport]:
    clock = SystemClock()
    for shard in range(store.settings.shard_count):
        leases.want(shard)
    out = sys.stdout
    progress = ApplyProgress(engine.report, out, terminal=out.isatty())
    try:
        with leases.renewed_meanwhile():
            return apply_repository(
                engine,
                DirectorySource(repo),
                commit,
                clock.now() + timeout,
                hide=store.hide,
                on_pass=progress,
                blocks=StoredBlocks(store.template_blocks()),
                # the first plan of a change to a stack just converged reads its memo, not its records
                on_converged=functools.partial(keep_plan_memo, store),
            )
    finally:
        progress.done()


@click.command(name="apply")
@click.option("--repo", "repo", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@database_option()
@timeout_option()
@click.option(
    "--allow-dirty",
    is_flag=True,
    help="Apply uncommitted changes too, recorded as 'uncommitted' rather than under HEAD's id.",
)
def command(repo: Path, database: str, timeout: float, allow_dirty: bool) -> None:
    """Converge the repository's HEAD once and exit (0 when every stack is CONVERGED)."""
    commit = commit_of(repo, allow_dirty=allow_dirty)
    url = database
    clock = SystemClock()
    store = open_store(url, clock=clock, sealer=state_sealer(url, state_directory()))
    worker = WorkerIdentity(
        f"apply-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}",
        socket.gethostname(),
        os.getpid(),
    )
    store.heartbeat(worker)
    clouds = CloudRoot(clock, sim_path=sim_cloud_path(url), software=stored_software(store))
    leases = SoleWorkerLeases(store, worker.id, clock)
    engine = Engine(store, clouds, clock, worker.id, leases=leases, sleeper=clock, settings=EngineSettings())
    tune_process()
    try:
        reports = _converge(store, engine, repo, leases, timeout=timeout, commit=commit)
    except TemplateError as error:
        raise click.ClickException("\n".join(str(problem) for problem in error.problems)) from None
    finally:
        engine.close()
        clouds.save()
        leases.release_all()
        store.close()
    for report in reports.values():
        print_report(report)
    if leases.held_by_others:
        click.echo(
            f"{len(leases.held_by_others)} shards are held by another worker; their stacks were not applied"
        )
    converged = all(report.status in AT_REST for report in reports.values())
    raise SystemExit(0 if converged else 1)
