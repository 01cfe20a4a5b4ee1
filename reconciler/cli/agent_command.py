"""`reconciler agent`: the agent a VM runs against the daemon's agent API."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import click

from reconciler.agent.poller import Agent, run_forever


@click.command(name="agent")
@click.option(
    "--metadata-url",
    required=True,
    help="The server's metadata URL (os-collect-config's request.metadata_url).",
)
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("/var/lib/reconciler-agent"),
    show_default=True,
    help="Where the runs done are remembered, across restarts.",
)
@click.option("--interval", type=float, default=30.0, show_default=True, help="Seconds between polls.")
@click.option("--time-limit", type=float, default=600.0, show_default=True, help="Seconds a script may run.")
@click.option("--once", is_flag=True, help="Poll once, run what is new, and exit.")
def command(metadata_url: str, state_dir: Path, interval: float, time_limit: float, once: bool) -> None:
    """Poll a server's deployments, run each new one once (heat-config's script hook), signal back."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    agent = Agent(metadata_url, state_dir, time_limit)
    if once:
        click.echo(f"ran {agent.poll()} deployment(s)")
        return
    run_forever(agent, interval, threading.Event().wait)
