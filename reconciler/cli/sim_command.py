"""`reconciler sim serve`: serve the simulated OpenStack cloud over HTTP until stopped.

    reconciler sim serve --port 8774 --clouds-yaml ~/.config/openstack/clouds.yaml --state cloud.json

Then `OS_CLIENT_CONFIG_FILE=<that clouds.yaml>` and `cloud: simulated` (or `openstack.connect(
cloud="simulated")`) reach it. With `--state`, the cloud is read from that file at start and written
back on SIGINT / SIGTERM (and on `POST /admin/save`).
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType

import click

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.faults import Faults
from providers.simulated.http.clouds_yaml import write_clouds_yaml
from providers.simulated.http.embedded import DEFAULT_CLOUD_NAME
from providers.simulated.http.server import CloudHTTPServer
from providers.simulated.settings import CloudSettings, Latency


def _latency(_: click.Context, __: click.Parameter, value: str | None) -> Latency:
    try:
        return Latency.parse(value or "")
    except ValueError as error:
        raise click.BadParameter(f"{error} (expected seconds, e.g. 0.05 or 0.05,create=0.2)") from None


def _faults(_: click.Context, __: click.Parameter, value: str | None) -> Faults:
    try:
        return Faults.parse(value or "")
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@click.group(name="sim")
def command() -> None:
    """Serve the simulated OpenStack cloud."""


@command.command(name="serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=0, type=click.IntRange(0, 65535), help="Port (0: any free port).")
@click.option("--latency", callback=_latency, help="Seconds per call: 0.05, or 0.05,create=0.2,list=0.01.")
@click.option("--time-to-active", default=0.0, type=click.FloatRange(0), help="Seconds in BUILD.")
@click.option("--faults", callback=_faults, help="e.g. error_rate=0.1,kinds=500+429+timeout,retry_after=2.")
@click.option("--max-concurrent", type=click.IntRange(1), help="Calls in flight at once; more get a 429.")
@click.option("--regions", default="", help="Regions served besides RegionOne, e.g. RegionTwo,RegionThree.")
@click.option(
    "--clouds-yaml", type=click.Path(dir_okay=False, path_type=Path), help="Write a clouds.yaml entry."
)
@click.option("--name", default=DEFAULT_CLOUD_NAME, show_default=True, help="The clouds.yaml entry's name.")
@click.option(
    "--state", type=click.Path(dir_okay=False, path_type=Path), help="State file (read, then saved)."
)
def serve(
    *,
    host: str,
    port: int,
    latency: Latency,
    time_to_active: float,
    faults: Faults,
    max_concurrent: int | None,
    regions: str,
    clouds_yaml: Path | None,
    name: str,
    state: Path | None,
) -> None:
    """Serve Keystone, Nova, Neutron, Cinder and Glance subsets over one simulated cloud."""
    settings = CloudSettings(
        latency=latency,
        time_to_active=time_to_active,
        max_concurrent=max_concurrent,
        reject_over_limit=True,
        regions=CloudSettings.parse_regions(regions),
    )
    try:
        cloud = (
            SimulatedCloud.open(state, settings, faults=faults)
            if state
            else SimulatedCloud(settings, faults=faults)
        )
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    server = CloudHTTPServer(cloud, host, port)
    if clouds_yaml is not None:
        write_clouds_yaml(clouds_yaml, name, server.url, tuple(cloud.regions))
    stopping = threading.Event()

    def stop(signum: int, _: FrameType | None) -> None:
        stopping.set()
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    click.echo(f"simulated cloud serving at {server.url} (auth URL {server.url}/identity/v3)", err=True)
    if clouds_yaml is not None:
        click.echo(f"clouds.yaml entry {name!r} written to {clouds_yaml}", err=True)
    server.alarm_evaluator.start()
    try:
        server.serve_forever()
    finally:
        server.alarm_evaluator.stop()
        server.server_close()
        if state is not None:
            cloud.save()
            click.echo(f"simulated cloud saved to {state}", err=True)
