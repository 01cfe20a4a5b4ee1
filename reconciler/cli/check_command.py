"""`reconciler check STACK`: observe every resource of a stack (nested stacks included) now and
report a verdict per resource, changing nothing; exit 1 when any is not OK."""

from __future__ import annotations

import json
from pathlib import Path

import click

from reconciler.cli.database_option import database_option
from reconciler.cli.shared_options import optional_repo_option
from reconciler.daemon.clouds import SIM_CLOUD, CloudRoot, sim_cloud_path
from reconciler.daemon.software_records import stored_software
from reconciler.engine.stack_check import ResourceCheck, check_stack, nested_stacks
from reconciler.templates import DirectorySource, TemplateError, load_repository_config
from state.store import Store, open_store
from timekeeping import SystemClock


@click.command(name="check")
@click.argument("stack")
@database_option()
@optional_repo_option(
    "Take the stack's cloud from this repository's reconciler.yaml (default: as last applied)."
)
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def command(stack: str, database: str, repo: Path | None, output_format: str) -> None:
    """Observe every resource of STACK now and report each (exit 1 when any is missing or wrong)."""
    clock = SystemClock()
    store = open_store(database, clock=clock)
    clouds = CloudRoot(clock, sim_path=sim_cloud_path(database), software=stored_software(store))
    try:
        if store.read_stack(stack) is None:
            raise click.ClickException(f"no stack named {stack!r} in this database")
        checks = _check_tree(store, clouds, stack, _cloud_of(store, stack, repo))
    finally:
        store.close()
    _print(checks, output_format)
    raise SystemExit(0 if all(check.ok for check in checks) else 1)


def _cloud_of(store: Store, stack: str, repo: Path | None) -> str:
    if repo is not None:
        try:
            config = load_repository_config(DirectorySource(repo))
        except TemplateError as error:
            raise click.ClickException("\n".join(str(problem) for problem in error.problems)) from None
        if stack not in config.stacks:
            raise click.ClickException(f"{repo}: reconciler.yaml declares no stack {stack!r}")
        return config.stacks[stack].cloud
    newest = store.newest_generation(stack)
    return str(newest.inputs.get("cloud", SIM_CLOUD)) if newest is not None else SIM_CLOUD


def _check_tree(store: Store, clouds: CloudRoot, root: str, cloud: str) -> list[ResourceCheck]:
    checks: list[ResourceCheck] = []
    waiting = [(root, cloud)]
    while waiting:
        stack, parent_cloud = waiting.pop(0)
        # a nested stack names its own cloud (another region of it, for an OS::Heat::Stack's context)
        newest = store.newest_generation(stack) if stack != root else None
        here = str(newest.inputs.get("cloud", parent_cloud)) if newest is not None else parent_cloud
        providers = clouds.for_cloud(here)
        records = store.read_records(stack)
        checks.extend(check_stack(stack, records, providers))
        waiting.extend((child, here) for child in nested_stacks(stack, records, providers))
    return checks


def _print(checks: list[ResourceCheck], output_format: str) -> None:
    if output_format == "json":
        rows = [
            {
                "stack": check.stack,
                "resource": check.resource,
                "type": check.type,
                "physical_id": check.physical_id,
                "verdict": check.verdict.value,
                "detail": check.detail,
            }
            for check in checks
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    for check in checks:
        where = check.resource if "/" not in check.stack else f"{check.stack}: {check.resource}"
        detail = f" ({check.detail})" if check.detail else ""
        click.echo(f"{where} [{check.type} {check.physical_id or '-'}]: {check.verdict.value}{detail}")
    bad = sum(1 for check in checks if not check.ok)
    click.echo(f"{len(checks)} resources checked, {bad} not OK")
