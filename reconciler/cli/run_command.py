"""`reconciler run`: run the GitOps daemon."""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path

import click

from reconciler.daemon.assembly import assemble, database_url, state_directory
from reconciler.daemon.log_setup import FORMATS, LEVELS, configure_logging
from reconciler.daemon.service import Loop
from reconciler.daemon.settings import DaemonSettings, SettingsError, load_settings
from reconciler.daemon.worker_processes import FollowerCommand, FollowerProcesses
from reconciler.source.repository import RepositoryUnavailable

LOG = logging.getLogger("reconciler")
FOLLOWER_CHECK_SECONDS = 5.0  # how often the leader looks for crashed worker processes


def _stop_on_sigterm_while_starting() -> threading.Event:
    """SIGTERM before the service is up (migrations, first fetch) still means an orderly exit 0."""
    stopped = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda _number, _frame: stopped.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # nothing to reload yet; the service takes it over
    return stopped


def _settings(config: Path | None, **flags: object) -> DaemonSettings:
    try:
        return load_settings(config).overridden(**flags)
    except SettingsError as error:
        raise click.ClickException(str(error)) from None


def _follower_flags(settings: DaemonSettings, config: Path | None) -> tuple[str, ...]:
    """What followers share with the leader besides the repository and database: the settings file
    (secrets and notification target included) and the logging chosen."""
    flags: tuple[str, ...] = ("--log-level", settings.log_level, "--log-format", settings.log_format)
    if settings.notify_url:
        flags += ("--notify-url", settings.notify_url)
    return (*flags, "--config", str(config)) if config is not None else flags


@click.command(name="run")
@click.option("--repo", help="A local repository directory or a remote URL.")
@click.option(
    "--database", envvar="RECONCILER_DATABASE_URL", help="State database URL (default: SQLite file)."
)
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes on this host (default 1).")
@click.option("--listen", help="HOST:PORT for /healthz, /metrics, /hooks/git (default 127.0.0.1:8787).")
@click.option(
    "--config",
    envvar="RECONCILER_CONFIG",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Settings file (TOML; default /etc/reconciler/reconciler.toml when it exists).",
)
@click.option("--state-dir", help="Where the SQLite file and the repository cache live.")
@click.option("--fetch-interval", type=float, help="Seconds between fetches of a remote repository.")
@click.option("--sim-latency", help="Latency of the simulated cloud's calls, e.g. 0.05 or 0.05,create=0.2.")
@click.option("--sim-regions", help="Regions the simulated cloud serves besides RegionOne, e.g. RegionTwo.")
@click.option(
    "--log-level", type=click.Choice(list(LEVELS)), help="Least severe level logged (default info)."
)
@click.option(
    "--log-format",
    type=click.Choice(list(FORMATS)),
    help="text (journald-friendly) or json lines (default text).",
)
@click.option(
    "--webhook-secret",
    envvar="RECONCILER_WEBHOOK_SECRET",
    help="Shared secret push webhooks must be signed with (prefer webhook_secret_file or a credential).",
)
@click.option("--notify-url", help="POST each stack event here as JSON, signed with notify_secret.")
@click.option("--agent-listen", help="HOST:PORT of the agent API VMs poll and signal (default: none).")
@click.option("--agent-url", help="The agent API's URL as VMs reach it (default: http://AGENT_LISTEN).")
@click.option("--follower", is_flag=True, hidden=True, help="Run as a non-leading worker of --workers.")
@click.option("--worker-name", hidden=True, help="This worker's id (default: host, pid and a random tag).")
def command(
    *,
    repo: str | None,
    database: str | None,
    workers: int | None,
    listen: str | None,
    config: Path | None,
    state_dir: str | None,
    fetch_interval: float | None,
    sim_latency: str | None,
    sim_regions: str | None,
    log_level: str | None,
    log_format: str | None,
    webhook_secret: str | None,
    notify_url: str | None,
    agent_listen: str | None,
    agent_url: str | None,
    follower: bool,
    worker_name: str | None,
) -> None:
    """Run the GitOps daemon: follow the repository and keep its stacks converged."""
    flags: dict[str, object] = {
        "repo": repo,
        "database": database,
        "workers": workers,
        "listen": listen,
        "state_dir": state_dir,
        "fetch_interval": fetch_interval,
        "sim_latency": sim_latency,
        "sim_regions": sim_regions,
        "log_level": log_level,
        "log_format": log_format,
        "webhook_secret": webhook_secret,
        "notify_url": notify_url,
        "agent_listen": agent_listen,
        "agent_url": agent_url,
    }
    settings = _settings(config, **flags)
    configure_logging(settings.log_level, settings.log_format)
    stopped_early = _stop_on_sigterm_while_starting()
    try:
        daemon = assemble(
            settings,
            leader=not follower,
            worker_id=worker_name,
            reread_settings=lambda: load_settings(config).overridden(**flags),
        )
    except (RepositoryUnavailable, ValueError, SettingsError) as error:
        raise click.ClickException(str(error)) from None
    if stopped_early.is_set():
        daemon.stop_work(0)
        raise SystemExit(0)
    followers = None
    if not follower and settings.workers > 1:
        LOG.warning(
            "with --workers %d each process has its own in-process simulated cloud: stacks on cloud 'sim' "
            "should use one served by `reconciler sim serve` and named in clouds.yaml instead",
            settings.workers,
        )
        state_dir_path = state_directory(settings)
        followers = FollowerProcesses(
            FollowerCommand(
                repo=settings.repo,  # a URL: followers read the leader's cache and never fetch
                database=database_url(settings, state_dir_path),
                state_dir=str(state_dir_path),
                # followers make the same signal URLs; only the leader listens for agents
                extra=(*_follower_flags(settings, config), "--agent-url", settings.agent_base_url()),
            ),
            settings.workers - 1,
        )
        followers.start()
        daemon.service.add_loop(Loop("followers", FOLLOWER_CHECK_SECONDS, followers.revive))
    code = daemon.run()
    if followers is not None:
        followers.stop(settings.shutdown_deadline)
    raise SystemExit(code)
