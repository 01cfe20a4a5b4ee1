"""`reconciler adopt STACK FILE`: take existing resources under management as STACK, creating nothing.

FILE is Heat's abandon data (what `reconciler abandon` or `openstack stack abandon` printed) or a
hand-written map `{resource_name: physical_id}`. STACK is declared in the repository's
reconciler.yaml and converged once from its HEAD, as `reconciler apply` would, with every resource
FILE names taken as it exists instead of created: from then on it is managed as if it had been made
here (updated, replaced, deleted on removal by its deletion policy). Adopt data that names a
resource the template does not have, an id the cloud does not hold (or holds as another type), or
leaves a resource of the template unnamed is refused whole: each problem is printed, nothing is
created or deleted, and the exit status is 1.
"""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

import click
import platformdirs

from reconciler.cli.apply_command import commit_of, print_report
from reconciler.cli.database_option import database_option
from reconciler.cli.shared_options import timeout_option
from reconciler.daemon.clouds import CloudRoot, sim_cloud_path
from reconciler.daemon.state_key import state_sealer
from reconciler.engine import Engine, EngineSettings, SoleWorkerLeases
from reconciler.engine.repository_apply import submit_stack
from reconciler.engine.stack_status import AT_REST
from reconciler.templates import DirectorySource, TemplateError, load_repository_config
from reconciler.templates.adopt_data import Adoption, load_adoption
from reconciler.templates.limits import Limits
from state.store import open_store
from state.workers import WorkerIdentity
from timekeeping import SystemClock


@click.command(name="adopt")
@click.argument("stack")
@click.argument("adopt_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--repo", "repo", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@database_option()
@timeout_option()
def command(stack: str, adopt_file: Path, repo: Path, database: str, timeout: float) -> None:
    """Take existing resources under management as STACK, creating nothing."""
    commit = commit_of(repo, allow_dirty=True)
    try:
        config = load_repository_config(DirectorySource(repo))
        adoption = _read(adopt_file, config.limits)
    except TemplateError as error:
        raise click.ClickException("\n".join(str(problem) for problem in error.problems)) from None
    if stack not in config.stacks:
        raise click.ClickException(f"{repo}: reconciler.yaml declares no stack {stack!r}")
    clock = SystemClock()
    sealer = state_sealer(database, Path(platformdirs.user_state_dir("reconciler")))
    store = open_store(database, clock=clock, sealer=sealer)
    worker = WorkerIdentity(
        f"adopt-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}",
        socket.gethostname(),
        os.getpid(),
    )
    store.heartbeat(worker)
    clouds = CloudRoot(clock, sim_path=sim_cloud_path(database))
    leases = SoleWorkerLeases(store, worker.id, clock)
    for shard in range(store.settings.shard_count):
        leases.want(shard)
    engine = Engine(store, clouds, clock, worker.id, leases=leases, sleeper=clock, settings=EngineSettings())
    try:
        files = DirectorySource(repo)
        if submit_stack(engine, config, files, stack, commit, hide=store.hide, adoption=adoption) is not None:
            with leases.renewed_meanwhile():
                report = engine.converge([stack], clock.now() + timeout)[stack]
        else:
            report = engine.report(stack)
    finally:
        engine.close()
        clouds.save()
        leases.release_all()
        store.close()
    print_report(report)
    raise SystemExit(0 if report.status in AT_REST else 1)


def _read(path: Path, limits: Limits) -> Adoption:
    adoption = load_adoption(DirectorySource(path.parent), path.name, limits)
    return Adoption(str(path), adoption.resources)
