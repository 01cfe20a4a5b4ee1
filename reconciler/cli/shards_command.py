"""`reconciler shards`: show who holds which shard and the live workers."""

from __future__ import annotations

import json

import click
import sqlalchemy as sa

from reconciler.cli.database_option import database_option
from state.errors import InvalidDatabaseUrl
from state.lease_settings import LeaseSettings
from state.overview import DatabaseNotInitialised, LeaseOverview, iso_8601, read_overview
from state.urls import display_url
from timekeeping import SystemClock


def render_text(overview: LeaseOverview) -> str:
    """A table of shards and one of live workers, for a terminal."""
    lines = [f"{'shard':>5}  {'epoch':>6}  {'expires at (UTC)':<32}  owner"]
    for lease in overview.shards:
        owner = "-" if lease.owner is None or lease.expired else lease.owner
        expiry = "expired" if lease.expired else iso_8601(lease.expires_at)
        lines.append(f"{lease.shard:>5}  {lease.epoch:>6}  {expiry:<32}  {owner}")
    if not overview.shards:
        lines = ["no shards yet: they are laid out when the first worker starts"]
    lines.append("")
    lines.append(f"{len(overview.workers)} live worker(s)")
    lines.extend(
        f"  {worker.id}  host {worker.host}  pid {worker.pid}  heartbeat {iso_8601(worker.heartbeat_at)}"
        for worker in overview.workers
    )
    return "\n".join(lines) + "\n"


@click.command(name="shards")
@database_option()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text for a terminal, json for tools.",
)
@click.option(
    "--worker-timeout",
    type=float,
    default=LeaseSettings().dead_after,
    show_default=True,
    help="Seconds without a heartbeat after which a worker is not listed as live.",
)
def command(database: str, output_format: str, worker_timeout: float) -> None:
    """Show who holds which shard, at which epoch and until when, and the live workers."""
    try:
        overview = read_overview(database, clock=SystemClock(), worker_timeout=worker_timeout)
    except InvalidDatabaseUrl as error:
        raise click.BadParameter(str(error), param_hint="--database") from None
    except DatabaseNotInitialised as error:
        raise click.ClickException(str(error)) from None
    except sa.exc.OperationalError as error:
        raise click.ClickException(f"cannot reach {display_url(database)}: {error.orig or error}") from None
    if output_format == "json":
        click.echo(json.dumps(overview.as_json(), indent=2))
    else:
        click.echo(render_text(overview), nl=False)
