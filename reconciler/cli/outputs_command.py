"""`reconciler outputs STACK`: a stack's outputs, read from the store without touching the cloud.

Read through the database's own driver (`stored_outputs`), read-only: a database at an older
schema is refused, never upgraded, and the answer comes before SQLAlchemy could have been imported.
"""

from __future__ import annotations

import json

import click

from reconciler.cli.database_option import database_option
from reconciler.cli.stored_outputs import stored_outputs


@click.command(name="outputs")
@click.argument("stack")
@database_option()
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def command(stack: str, database: str, output_format: str) -> None:
    """Print a stack's outputs (JSON: an object of output name to value)."""
    outputs = stored_outputs(database, stack)
    if outputs is None:
        raise click.ClickException(f"no stack named {stack!r} in this database")
    if output_format == "json":
        click.echo(json.dumps(outputs, indent=2, sort_keys=True))
        return
    for name, value in sorted(outputs.items()):
        shown = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        click.echo(f"{name}: {shown}")
