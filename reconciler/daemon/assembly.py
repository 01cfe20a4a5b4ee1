"""The daemon put together: store, leases, clouds, engine, repository, notes, HTTP, systemd.

This is the one place that knows every concrete part; each part is handed what it needs, so tests
assemble the same daemon with a stepped clock, a temporary state directory and port 0.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from providers.heat.agent_links import AgentLinks
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.settings import CloudSettings, Latency
from reconciler.agent.agent_gateway import AgentAddress
from reconciler.daemon.agent_api import AgentApi
from reconciler.daemon.agent_server import AgentServer
from reconciler.daemon.clouds import CloudRoot, sim_cloud_path
from reconciler.daemon.collector import tune_process
from reconciler.daemon.event_metrics import counting_events, resource_type_in
from reconciler.daemon.gitops import Followed, GitOps
from reconciler.daemon.http_endpoints import Endpoints, HttpEndpoints, parse_listen
from reconciler.daemon.metered_clouds import CallMeter, MeteredClouds
from reconciler.daemon.metrics import DaemonMetrics
from reconciler.daemon.notifications import Delivery, Notifier
from reconciler.daemon.page_sources import daemon_page_sources
from reconciler.daemon.progress import ProgressMonitor
from reconciler.daemon.recent_events import RecentEvents
from reconciler.daemon.scrape_snapshot import scrape_snapshot
from reconciler.daemon.sd_notify import SystemdNotifier
from reconciler.daemon.secrets_source import SecretUnreadable, read_secret
from reconciler.daemon.service import Loop, Service, watchdog_interval
from reconciler.daemon.settings import DaemonSettings, SettingsError
from reconciler.daemon.signal_doorbell import SignalDoorbell
from reconciler.daemon.sim_agents_process import AgentsProcess
from reconciler.daemon.software_records import StoredSoftware
from reconciler.daemon.stack_board import StackBoard, StackView
from reconciler.daemon.stack_events_log import log_event
from reconciler.daemon.state_key import state_sealer
from reconciler.daemon.status_document import rendered, status_document
from reconciler.daemon.status_page import StatusPage
from reconciler.daemon.trust_settings import commit_trust, pinned_trust
from reconciler.engine.engine import Engine
from reconciler.engine.engine_loop import EngineLoop
from reconciler.engine.progress import Progress
from reconciler.engine.shared_calls import SharedCalls, SharedExecutor
from reconciler.source.notes_store import NothingToPush, Pushed, PushRejected
from reconciler.source.repository import FollowedRepository
from reconciler.templates.hidden_values import redact
from state import StackStatus, Store, WorkerIdentity, open_store, shard_for
from state.fencing import Fence
from state.shard_keeper import ShardKeeper
from state.signal_notices import ScalingSignalListener
from timekeeping import SystemClock

LOG = logging.getLogger(__name__)

STATE_DIR_VARIABLE = "RECONCILER_STATE_DIR"
DATABASE_FILE = "state.sqlite"  # the file name `reconciler apply` and `outputs` default to as well
FOLLOW, CONVERGE, LEASES, NOTES = "follow", "converge", "leases", "notes"
PUSH_OUTCOMES: Mapping[type, str] = {
    Pushed: "pushed",
    NothingToPush: "nothing_to_push",
    PushRejected: "rejected",
}


def state_directory(settings: DaemonSettings, environ: Mapping[str, str] = os.environ) -> Path:
    """`state_dir`, else `RECONCILER_STATE_DIR` (systemd's StateDirectory), else the user's state dir."""
    chosen = (
        settings.state_dir or environ.get(STATE_DIR_VARIABLE) or platformdirs.user_state_dir("reconciler")
    )
    path = Path(chosen)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _sim_options(settings: DaemonSettings) -> dict[str, Any]:
    if not settings.sim_latency and not settings.sim_regions:
        return {}
    try:
        latency = Latency.parse(settings.sim_latency)
    except ValueError:
        raise ValueError(
            f"sim_latency {settings.sim_latency!r}: expected seconds, e.g. 0.05,create=0.2"
        ) from None
    regions = CloudSettings.parse_regions(settings.sim_regions)
    return {"settings": CloudSettings(latency=latency, regions=regions)}


def database_url(settings: DaemonSettings, state_dir: Path) -> str:
    return settings.database or f"sqlite:///{state_dir / DATABASE_FILE}"


RESTART_ONLY = (
    *("repo", "database", "state_dir", "state_key_file", "listen", "workers", "sim_latency", "sim_regions"),
    *("webhook_secret", "webhook_secret_file", "notify_url", "notify_secret", "notify_secret_file"),
    *("agent_listen", "agent_url"),
)


def _apply_reloaded(service: Service, current: DaemonSettings, reread: Callable[[], DaemonSettings]) -> None:
    try:
        new = reread()
    except SettingsError as error:
        LOG.error("reload: %s; keeping the settings in force", error)
        return
    intervals = {
        FOLLOW: new.fetch_interval,
        CONVERGE: new.engine_interval,
        LEASES: new.lease_renew_interval,
        NOTES: new.notes_push_interval,
    }
    for loop, seconds in intervals.items():
        service.reschedule(loop, seconds)
    for name in RESTART_ONLY:
        if getattr(new, name) != getattr(current, name):
            LOG.warning("reload: %s changed; it takes effect at the next restart", name)
    LOG.info("reload: loop intervals now %s", ", ".join(f"{k} {v:g}s" for k, v in intervals.items()))


class KeeperShards:
    """The engine's `HeldShards`, answered from the daemon's lease loop."""

    def __init__(self, keeper: ShardKeeper) -> None:
        self.keeper = keeper

    def held(self) -> Mapping[int, int]:
        return {shard: fence.epoch for shard, fence in self.keeper.fences().items()}

    def holds(self, shard: int, epoch: int) -> bool:
        return self.keeper.fence_for(shard) == Fence(shard, epoch)


@dataclass
class AssembledDaemon:
    """Every part of one worker process, ready to `run()`."""

    settings: DaemonSettings
    store: Store
    metrics: DaemonMetrics
    service: Service
    gitops: GitOps
    engine: Engine
    keeper: ShardKeeper
    http: HttpEndpoints
    clouds: CloudRoot
    repository: FollowedRepository
    executor: SharedExecutor
    notifier: Notifier | None = None  # stack events POSTed to `notify_url`, when one is set
    agent: AgentServer | None = None
    sim_agents: AgentsProcess | None = None  # the simulated cloud's VMs, with the agent API on
    # PostgreSQL: scaling signals kept by any daemon of the fleet wake this one's engine
    scaling_listener: ScalingSignalListener | None = None

    def run(self) -> int:
        """Serve until SIGTERM (from the main thread: it installs the signal handlers)."""
        self.service.install_signal_handlers()
        tune_process()
        self.executor.start()
        if self.notifier is not None:
            self.notifier.start()
        self.http.start()
        host, port = self.http.address
        LOG.info(
            "listening on http://%s:%d (status page /, /healthz, /metrics, /status, POST /hooks/git)",
            host,
            port,
        )
        if self.agent is not None:
            self.agent.start()
            LOG.info(
                "agent API on http://%s:%d (VMs reach it at %s)",
                *self.agent.address,
                self.settings.agent_base_url(),
            )
        if self.sim_agents is not None:
            self.sim_agents.start()
        if self.scaling_listener is not None:
            self.scaling_listener.start()
        try:
            return self.service.run()
        finally:
            if self.scaling_listener is not None:
                self.scaling_listener.stop()
            if self.sim_agents is not None:
                self.sim_agents.stop()
            if self.agent is not None:
                self.agent.stop()
            self.http.stop()

    def _close_calls(self) -> None:
        self.engine.close()
        self.executor.stop()  # claims no more; calls it runs finish and their outcomes are stored

    def stop_work(self, deadline: float) -> None:
        """After the last pass: let calls in flight end (up to `deadline` s), publish notes, release leases.

        Results of calls that finish now are not recorded by this worker; whoever converges the
        stack next adopts what they made by its idempotency marker, so nothing is made twice.
        """
        closing = threading.Thread(target=self._close_calls, name="engine-close", daemon=True)
        closing.start()
        closing.join(deadline)
        if closing.is_alive():
            LOG.warning("cloud calls still running after %.0f s; leaving them behind", deadline)
        self.clouds.save()
        try:
            self.gitops.publish()
        except Exception:
            LOG.exception("publishing notes at shutdown failed; they stay in the outbox")
        if self.notifier is not None:
            self.notifier.stop()
        released = self.keeper.stop()
        LOG.info("stopped: released %d shard(s) within the %.0f s deadline", len(released), deadline)


def _secret(value: str | None, file: str | None, credential: str, environ: Mapping[str, str]) -> bytes | None:
    try:
        return read_secret(value, file, credential, environ)
    except SecretUnreadable as error:
        raise SettingsError(str(error)) from None


def _webhook_secret(settings: DaemonSettings, environ: Mapping[str, str]) -> bytes | None:
    return _secret(settings.webhook_secret, settings.webhook_secret_file, "webhook-secret", environ)


def _notifier(settings: DaemonSettings, environ: Mapping[str, str]) -> Notifier | None:
    """The sender of stack events to `notify_url`, signed with its secret; None without a URL."""
    if not settings.notify_url:
        return None
    if not settings.notify_url.startswith(("http://", "https://")):
        raise SettingsError(f"notify_url {settings.notify_url!r}: expected an http:// or https:// URL")
    secret = _secret(settings.notify_secret, settings.notify_secret_file, "notify-secret", environ)
    return Notifier(Delivery(settings.notify_url, secret))


def held_views(board: StackBoard, gitops: GitOps) -> list[StackView]:
    """Every stack declared at the tracked commit whose shard this worker holds, as the board has
    it; one not reported yet (waiting for another's outputs, not loaded yet) is PENDING."""
    good = gitops.good
    declared = sorted(good.config.stacks) if good is not None else []
    seen = {view.stack: view for view in board.views()}
    return [
        seen.get(name) or StackView(name, str(StackStatus.PENDING), None)
        for name in declared
        if gitops.holds(name)
    ]


def daemon_status(gitops: GitOps, board: StackBoard, store: Store) -> dict[str, object]:
    """`GET /status`: every stack declared at the newest valid tracked commit."""
    good = gitops.good
    declared = sorted(good.config.stacks) if good is not None else []
    return status_document(
        gitops.seen_commit, declared, held_views(board, gitops), store.read_stacks, gitops.reports()
    )


def _converge_loop(engine_loop: EngineLoop, clock: SystemClock, interval: float) -> Loop:
    """The engine's loop: it takes the daemon's lock only to step and report (`GitOps.converge`),
    and between passes waits, unlocked, for calls to come back or the next deadline the pass
    reported, one `interval` at most (a commit submitted meanwhile is seen by then)."""
    return Loop(CONVERGE, interval, lambda: engine_loop.turn(clock.now() + interval), continuous=True)


def _keeper_and_engine(
    store: Store,
    identity: WorkerIdentity,
    clock: SystemClock,
    clouds: MeteredClouds,
    doorbell: SignalDoorbell,
) -> tuple[ShardKeeper, Engine]:
    """The worker's lease keeper and engine: a shard to hand back drains while its calls are out;
    the engine answers `doorbell`."""

    def busy() -> frozenset[int]:
        return engine.shards_with_calls_out()  # made below, before the first tick asks

    keeper = ShardKeeper(store, identity, clock=clock, busy=busy)
    engine = Engine(
        store,
        clouds,
        clock,
        identity.id,
        leases=KeeperShards(keeper),
        sleeper=clock,
        shared=SharedCalls(store),  # a full pool queues calls for the other live workers
    )
    doorbell.engine = engine
    keeper.tick()
    return keeper, engine


def _agent_server(
    settings: DaemonSettings, store: Store, *, leader: bool
) -> tuple[AgentServer | None, SignalDoorbell]:
    """The agent API's listener (one per host: followers of --workers make the same URLs but
    leave serving to the leader), and the doorbell a scaling signal it keeps rings: the engine of
    this process, once made, answers it."""
    doorbell = SignalDoorbell()
    if not settings.agent_listen or not leader:
        return None, doorbell
    host, port = parse_listen(settings.agent_listen)
    server = AgentServer(
        host,
        port,
        lambda links: AgentApi(
            store.software(), links, store.scaling(), doorbell.ring, doorbell.ring_resources
        ),
        settings.agent_url,
    )
    return server, doorbell


def _sim_agents(clouds: CloudRoot, sim_path: Path, agent: AgentServer) -> AgentsProcess:
    """Agents for the simulated cloud's servers, in a process of their own, remembering their runs
    beside the cloud's file, their scripts reaching the agent API at the address VMs are given."""

    def cloud() -> SimulatedCloud | None:
        opened = clouds.opened_simulated()
        return None if opened is None else opened.cloud

    address = AgentAddress.of(agent.links.agent_url, agent.address)
    if address is None:
        LOG.warning("agent_url names no IPv4 address: the simulated cloud's scripts reach no network")
    return AgentsProcess(cloud, sim_path.with_name(sim_path.name + ".agents"), agent_address=address)


def _identity(worker_id: str | None) -> WorkerIdentity:
    """This worker process: the given name, else host, pid and a random suffix."""
    return WorkerIdentity(
        id=worker_id or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}",
        host=socket.gethostname(),
        pid=os.getpid(),
    )


def assemble(
    settings: DaemonSettings,
    *,
    leader: bool = True,
    worker_id: str | None = None,
    environ: Mapping[str, str] = os.environ,
    reread_settings: Callable[[], DaemonSettings] | None = None,
) -> AssembledDaemon:
    """Build one worker process of the daemon from its settings.

    `reread_settings` is called on SIGHUP: the loops' intervals follow the new settings at once;
    the repository, database, listen address and worker count need a restart (logged as such).
    """
    # bad input fails before anything is opened
    (host, port), pinned = parse_listen(settings.listen), pinned_trust(settings)
    sim_options = _sim_options(settings)
    clock = SystemClock()
    state_dir = state_directory(settings, environ)
    url = database_url(settings, state_dir)
    store = open_store(
        url,
        clock=clock,
        sealer=state_sealer(url, state_dir, key_file=settings.state_key_file, environ=environ),
    )
    identity = _identity(worker_id)
    agent, doorbell = _agent_server(settings, store, leader=leader)
    intervals = {
        FOLLOW: settings.fetch_interval,
        CONVERGE: settings.engine_interval,
        LEASES: settings.lease_renew_interval,
        NOTES: settings.notes_push_interval,
    }
    # a loop may be late by its allowance, and never less than two of its own intervals
    progress = ProgressMonitor(
        clock, {loop: max(settings.watchdog_allowance, 2 * every) for loop, every in intervals.items()}
    )
    # Both listeners are bound before any lease is taken: a daemon that cannot listen holds no shard.
    http = HttpEndpoints(
        host,
        port,
        Endpoints(
            health=progress.health,
            metrics=lambda: metrics.render(),  # noqa: PLW0108 - `metrics` is made below
            git_hook=lambda: service.wake(FOLLOW),
            status=lambda: rendered(daemon_status(gitops, board, store)),
            page=lambda target: page.answer(target),  # noqa: PLW0108 - `page` is made below
            webhook_secret=_secret(
                settings.webhook_secret, settings.webhook_secret_file, "webhook-secret", environ
            ),
        ),
    )
    links = AgentLinks(settings.agent_base_url()) if agent is None else agent.links
    clouds = CloudRoot(
        clock,
        sleeper=clock,
        sim_path=sim_cloud_path(url),
        sim_options=sim_options,
        software=(StoredSoftware(store.software()), links),
    )
    meter = CallMeter()
    keeper, engine = _keeper_and_engine(store, identity, clock, MeteredClouds(clouds, meter), doorbell)
    repository = FollowedRepository(settings.repo, state_dir / "repositories")

    notifier = _notifier(settings, environ)
    recent = RecentEvents()

    def without_secrets(stack: str, text: str) -> str:
        return redact(text, gitops.notes.hidden.get(stack, frozenset()))

    metrics = DaemonMetrics(
        lambda: scrape_snapshot(held_views(board, gitops), store, keeper.fences().keys(), meter),
        lambda: held_views(board, gitops),
    )
    board = StackBoard(
        clock,
        [
            log_event,
            recent.send,
            counting_events(metrics.drift_repairs, metrics.failures, resource_type_in(engine)),
            *([] if notifier is None else [notifier.send]),
        ],
        without_secrets,
    )

    holder: dict[str, Service] = {}
    gitops = GitOps(
        repository,
        store,
        engine,
        clock=clock,
        writer=identity.id,
        leader=leader,
        holds=lambda stack: shard_for(stack, store.settings.shard_count) in keeper.fences(),
        rules_for=clouds.for_cloud,
        held_shards=lambda: keeper.fences().keys(),
        on_settled=metrics.convergence_seconds.observe,
        on_noted=lambda: wake(NOTES),
        on_report=board.saw,
        trust=commit_trust(settings, repository.repo, state_dir, pinned),
    )

    page = StatusPage(
        daemon_page_sources(
            gitops,
            lambda: held_views(board, gitops),
            store=store,
            engine=engine,
            events=recent,
            redact=without_secrets,
        )
    )

    def wake(loop: str) -> None:
        if "service" in holder:
            holder["service"].wake(loop)

    def follow_pass() -> object:
        outcome = gitops.follow()
        if isinstance(outcome, Followed) and outcome.new_commit:
            metrics.commits_seen.inc()
        return outcome

    def timed_pass() -> Progress:
        with metrics.reconcile_seconds.time():
            return gitops.converge()

    def notes_pass() -> object:
        clouds.save()  # the simulated cloud's file, so a crash loses nothing the notes speak of
        outcome = gitops.publish()
        if outcome is not None:
            metrics.notes_pushed.labels(outcome=PUSH_OUTCOMES[type(outcome)]).inc()
        return outcome

    def on_reload() -> None:
        if reread_settings is not None:
            _apply_reloaded(holder["service"], settings, reread_settings)
        gitops.reload()
        wake(FOLLOW)

    passes = {FOLLOW: follow_pass, LEASES: keeper.tick, NOTES: notes_pass}
    # The lease loop ticks when the keeper says (a peer's lease expiring), not only every renew
    # interval: a takeover takes about lease + one tick, not lease + a whole renew interval.
    loops = [
        Loop(name, intervals[name], run_pass, lambda: keeper.next_tick_at() - clock.now())
        if name == LEASES
        else Loop(name, intervals[name], run_pass)
        for name, run_pass in passes.items()
    ] + [_converge_loop(EngineLoop(engine, clock, timed_pass), clock, intervals[CONVERGE])]
    service = Service(
        loops,
        notifier=SystemdNotifier.from_environment(environ) if leader else SystemdNotifier(None),
        progress=progress,
        status=gitops.status_line,
        on_reload=on_reload,
        on_stop=lambda deadline: daemon.stop_work(deadline),  # noqa: PLW0108 - `daemon` is made below
        shutdown_deadline=settings.shutdown_deadline,
        watchdog_every=watchdog_interval() if leader else None,
    )
    holder["service"] = service
    repository.watch(lambda: wake(FOLLOW), cache_too=not leader)
    daemon = AssembledDaemon(
        settings,
        store,
        metrics,
        service,
        gitops,
        engine,
        keeper,
        http,
        clouds,
        repository,
        # cloud calls other workers' coordinators queue when their own pools are full (DESIGN.md §5)
        SharedExecutor(store, MeteredClouds(clouds, meter), identity.id, threads=engine.settings.pool_size),
        notifier,
        agent,
        _sim_agents(clouds, sim_cloud_path(url), agent) if agent is not None else None,
        store.scaling_signal_listener(doorbell.ring, doorbell.ring_resources),
    )
    return daemon
