"""`reconciler retry STACK [RESOURCE]`: try the stack's FAILED resources again now.

The ask goes through the state database, so it reaches whichever daemon holds the stack, on any
host (or the next `reconciler apply`): one retry request per stack of the tree (the stack and the
nested stacks under it, or under RESOURCE), each read by the holder of its shard at its next pass.
A person's ask retries escalated resources too (those waiting for a person).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from reconciler.cli.database_option import database_option
from reconciler.templates import DirectorySource, TemplateError, load_repository_config
from state import RecordedResource
from state.store import Store, open_store
from timekeeping import SystemClock

FAILED = "FAILED"


@click.command(name="retry")
@click.argument("stack")
@click.argument("resource", required=False)
@database_option()
@click.option(
    "--repo",
    "repo",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Refuse a stack this repository's reconciler.yaml does not declare.",
)
def command(stack: str, resource: str | None, database: str, repo: Path | None) -> None:
    """Try the FAILED resources of STACK (or only RESOURCE) again now, nested stacks included."""
    if repo is not None:
        _check_declared(repo, stack)
    store = open_store(database, clock=SystemClock())
    try:
        if store.read_stack(stack) is None:
            raise click.ClickException(f"no stack named {stack!r} in this database")
        records = store.read_records(stack)
        if resource is not None and not any(record.logical_name == resource for record in records):
            raise click.ClickException(f"stack {stack!r} has no resource {resource!r}")
        asked = _ask(store, stack, resource, records)
    finally:
        store.close()
    for name, record in asked:
        if record.status == FAILED:
            click.echo(f"{name}: FAILED: {record.last_error or 'no reason recorded'}")
    stacks = len({name.rpartition("/")[0] for name, _ in asked} | {stack})
    failed = sum(1 for _, record in asked if record.status == FAILED)
    click.echo(
        f"retry asked for {failed} failed resource(s) in {stacks} stack(s); "
        "the daemon holding them tries again at its next pass"
    )


def _check_declared(repo: Path, stack: str) -> None:
    try:
        config = load_repository_config(DirectorySource(repo))
    except TemplateError as error:
        raise click.ClickException("\n".join(str(problem) for problem in error.problems)) from None
    root = stack.split("/", 1)[0]
    if root not in config.stacks:
        raise click.ClickException(f"{repo}: reconciler.yaml declares no stack {root!r}")


def _ask(
    store: Store, stack: str, resource: str | None, records: Sequence[RecordedResource]
) -> list[tuple[str, RecordedResource]]:
    """One request for `stack` (for `resource` alone, if named) and one per stack nested under it;
    every record of the stacks asked about, by its full name."""
    store.request_retry(stack, resource)
    chosen = [record for record in records if resource is None or record.logical_name == resource]
    seen = [(f"{stack}/{record.logical_name}", record) for record in chosen]
    waiting = _children(stack, chosen)
    while waiting:
        child = waiting.pop(0)
        store.request_retry(child)
        child_records = store.read_records(child)
        seen.extend((f"{child}/{record.logical_name}", record) for record in child_records)
        waiting.extend(_children(child, child_records))
    return seen


def _children(stack: str, records: Sequence[RecordedResource]) -> list[str]:
    """The nested stacks `records` stand for: their physical id is the child stack's name."""
    return sorted(
        str(record.physical_id)
        for record in records
        if record.physical_id == f"{stack}/{record.logical_name}"
    )
