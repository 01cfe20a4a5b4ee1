"""`reconciler outputs STACK`: a stack's outputs, read from the store without touching the cloud.

The store is opened read-only: a database at an older schema is refused, never upgraded.
"""

from __future__ import annotations

import json

import click

from reconciler.cli.database_option import database_option
from state.read_only_store import open_store_read_only
from timekeeping import SystemClock


@click.command(name="outputs")
@click.argument("stack")
@database_option()
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def command(stack: str, database: str, output_format: str) -> None:
    """Print a stack's outputs (JSON: an object of output name to value)."""
    store = open_store_read_only(database, clock=SystemClock())
    try:
        state = store.read_stack(stack)
    finally:
        store.close()
    if state is None:
        raise click.ClickException(f"no stack named {stack!r} in this database")
    if output_format == "json":
        click.echo(json.dumps(state.outputs, indent=2, sort_keys=True))
        return
    for name, value in sorted(state.outputs.items()):
        shown = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        click.echo(f"{name}: {shown}")
