"""`reconciler db`: manage the state database (`reconciler db upgrade --database URL`)."""

from __future__ import annotations

import click
import sqlalchemy as sa

from reconciler.cli.database_option import database_option
from state.errors import InvalidDatabaseUrl
from state.migrate import current_revision, head_revision, upgrade
from state.urls import display_url


@click.group(name="db")
def command() -> None:
    """Manage the state database."""


@command.command(name="upgrade")
@database_option()
def upgrade_command(database: str) -> None:
    """Create the state tables or bring them to the newest schema, keeping the data."""
    try:
        outcome = upgrade(database)
    except InvalidDatabaseUrl as error:
        raise click.BadParameter(str(error), param_hint="--database") from None
    except sa.exc.OperationalError as error:
        raise click.ClickException(f"cannot reach {display_url(database)}: {error.orig or error}") from None
    where = display_url(database)
    if outcome.changed:
        click.echo(f"{where}: upgraded from {outcome.before or 'an empty database'} to {outcome.after}")
    else:
        click.echo(f"{where}: already at the newest schema ({outcome.after})")


@command.command(name="current")
@database_option()
def current_command(database: str) -> None:
    """Print the database's schema revision and the newest one this version knows."""
    try:
        revision = current_revision(database)
    except InvalidDatabaseUrl as error:
        raise click.BadParameter(str(error), param_hint="--database") from None
    except sa.exc.OperationalError as error:
        raise click.ClickException(f"cannot reach {display_url(database)}: {error.orig or error}") from None
    click.echo(f"{display_url(database)}: at {revision or 'no schema'}; newest known {head_revision()}")
