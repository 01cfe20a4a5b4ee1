"""One chaos run: set up the world, let a scenario disturb it, wait for convergence, audit, tear
everything down.

The world is a private PostgreSQL cluster, one simulated cloud served over HTTP on loopback, a
bare git remote holding the workload, and daemons following it. The scenario drives; the run
keeps the rules every scenario shares: a daemon that exits by itself is started again, nothing
waits past the run's deadline, and whatever happens every process started is ended and every
file (the database with them) removed.
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.chaos.audit import Audit, audit
from bench.chaos.figures import RunFigures
from bench.chaos.fleet import Daemon, Fleet
from bench.chaos.git_remote import WorkloadRemote
from bench.chaos.postgres_cluster import PostgresCluster, private_cluster
from bench.chaos.served_cloud import CLOUD_NAME, ServedCloud
from bench.chaos.state_probe import StateProbe
from bench.chaos.watch import Watcher
from bench.chaos.workload import CHANGED_BY_REVISION_1, ROOT_STACKS, Sizes, resource_count, wanted_names

LEASE_SECONDS = 15.0  # the daemons' defaults (DESIGN.md §5)
RENEW_SECONDS = 5.0
STALL_MARGIN = 10.0
SETTLE_SECONDS = 5.0  # after convergence, for calls already answered to land before the audit
WAIT_STEP = 0.5
EXAMPLE_STACKS = 5
HANDOVER_WAIT = 3 * LEASE_SECONDS  # a takeover still open after convergence gets this long to finish


class RunDeadline(Exception):
    """The run's deadline passed while a scenario was waiting: it stops, the audit still runs."""


@dataclass(frozen=True)
class RunOptions:
    members: int = 50  # per fleet: 400 servers, ports and volumes (250: 2,000, slow on 2 cores)
    deadline: float = 900.0  # seconds for the whole run, however it goes
    latency: str = "0.01"  # the cloud's seconds per call
    time_to_active: float = 0.5  # seconds servers and volumes stay in BUILD
    seed: int | None = None
    keep: bool = False  # keep the run's directory (logs) instead of removing it
    workdir: Path | None = None


@dataclass(frozen=True)
class Scenario:
    """A named disturbance: the daemons it starts with, cloud options, and what it does."""

    name: str
    description: str
    drive: Callable[[Run], None]
    daemons: int = 3
    cloud_options: Sequence[str] = ()


@dataclass
class Run:
    """What a scenario acts on, and the helpers it acts with."""

    options: RunOptions
    fleet: Fleet
    cloud: ServedCloud
    cluster: PostgresCluster
    remote: WorkloadRemote
    watcher: Watcher
    rng: random.Random
    deadline: float
    commits: dict[int, str] = field(default_factory=dict)
    change_pushed_at: float | None = None
    notes: list[str] = field(default_factory=list)

    def wait(self, seconds: float) -> None:
        self.wait_until(lambda: False, seconds, quietly=True)

    def wait_until(self, condition: Callable[[], bool], timeout: float, *, quietly: bool = False) -> bool:
        """Until `condition` holds or `timeout` passes, starting again daemons that exited."""
        until = min(time.monotonic() + timeout, self.deadline)
        while time.monotonic() < until:
            for slot in self.fleet.revive_exited():
                self.watcher.note(f"{slot} exited by itself: started again")
            if condition():
                return True
            time.sleep(WAIT_STEP)
        if time.monotonic() >= self.deadline:
            raise RunDeadline()
        return quietly

    def share(self) -> float:
        """How much of what the first commit wants the cloud holds (counts, not names)."""
        return self.watcher.audited_fraction(resource_count(Sizes.at(self.options.members, 0)))

    def wait_for_share(self, fraction: float) -> None:
        self.wait_until(lambda: self.share() >= fraction, self.deadline)

    def push_change(self) -> None:
        """Commit and push revision 1; from now on convergence is measured against it."""
        self.commits[1] = self.remote.push_revision(Sizes.at(self.options.members, 1), "the change")
        self.change_pushed_at = self.watcher.now()
        self.watcher.expect(
            {
                name: frozenset(
                    {self.commits[1]} if name in CHANGED_BY_REVISION_1 else set(self.commits.values())
                )
                for name in ROOT_STACKS
            }
        )
        self.watcher.note("change pushed")

    def change_seen(self) -> bool:
        """Whether a daemon recorded a generation of the change for some stack."""
        snapshot = self.watcher.latest
        return snapshot is not None and any(
            row.newest_commit == self.commits.get(1) for row in snapshot.stacks.values()
        )

    def kill(self, slot: str) -> Daemon:
        daemon = self.fleet.live[slot]
        self.watcher.lost(daemon.worker_id)
        self.fleet.kill(slot)
        self.watcher.note(f"kill -9 {daemon.worker_id}")
        return daemon

    def busiest_slot(self) -> str:
        """The live daemon holding the most shards."""
        snapshot = self.watcher.latest
        held = snapshot.shards_per_worker() if snapshot is not None else {}
        return max(self.fleet.live, key=lambda slot: held.get(self.fleet.live[slot].worker_id, 0))

    def audit_now(self, revision: int) -> Audit:
        return audit(self.cloud.inventory(), wanted_names(Sizes.at(self.options.members, revision)))


def _cloud_options(options: RunOptions, scenario: Scenario) -> list[str]:
    timing = ["--latency", options.latency, "--time-to-active", str(options.time_to_active)]
    return [*timing, *scenario.cloud_options]


def execute(scenario: Scenario, options: RunOptions, index: int) -> RunFigures:
    """Run `scenario` once from nothing to audit; everything started is stopped before returning."""
    started = time.monotonic()
    directory = Path(tempfile.mkdtemp(prefix=f"chaos-{scenario.name}-", dir=options.workdir))
    print(f"{scenario.name} #{index}: in {directory}", flush=True)
    try:
        with private_cluster(directory) as cluster:
            cloud = ServedCloud(directory, *_cloud_options(options, scenario))
            try:
                return _measured(
                    scenario,
                    options,
                    index,
                    directory=directory,
                    cluster=cluster,
                    cloud=cloud,
                    started=started,
                )
            finally:
                cloud.stop()
    finally:
        if not options.keep:
            shutil.rmtree(directory, ignore_errors=True)


def _measured(
    scenario: Scenario,
    options: RunOptions,
    index: int,
    *,
    directory: Path,
    cluster: PostgresCluster,
    cloud: ServedCloud,
    started: float,
) -> RunFigures:
    remote = WorkloadRemote(directory, CLOUD_NAME)
    commits = {0: remote.push_revision(Sizes.at(options.members, 0), "the workload")}
    fleet = Fleet(directory, remote.url, cluster.url, cloud.clouds_yaml)
    probe = StateProbe(cluster.url)
    watcher = Watcher(probe, cloud, stall_after=LEASE_SECONDS + RENEW_SECONDS + STALL_MARGIN)
    run = Run(
        options,
        fleet,
        cloud,
        cluster,
        remote,
        watcher,
        random.Random(None if options.seed is None else f"{options.seed}-{index}"),  # each run its own
        started + options.deadline,
    )
    run.commits.update(commits)
    try:
        for slot in range(scenario.daemons):
            fleet.start(f"d{slot}")
        watcher.start()
        try:
            scenario.drive(run)
            if run.change_pushed_at is None:
                run.wait_for_share(0.5)
                run.push_change()
            run.wait_until(lambda: watcher.converged_since is not None, options.deadline)
            run.wait_until(lambda: not watcher.handovers_pending(), HANDOVER_WAIT)
            run.wait(SETTLE_SECONDS)
        except RunDeadline:
            watcher.note("run deadline reached")
        watcher.stop()
        if watcher.converged_since is None and watcher.first_converged is not None:
            run.notes.append("no longer converged at the audit")
        final = run.audit_now(1)
    finally:
        watcher.stop()
        fleet.stop_all()
        probe.close()
    return _figures(scenario, run, index, final, started)


def _figures(scenario: Scenario, run: Run, index: int, final: Audit, started: float) -> RunFigures:
    watcher = run.watcher
    converged = watcher.first_converged
    change = None if converged is None or run.change_pushed_at is None else converged - run.change_pushed_at
    return RunFigures(
        scenario=scenario.name,
        run=index,
        resources=resource_count(Sizes.at(run.options.members, 1)),
        seconds=time.monotonic() - started,
        converged_after=converged,
        change_to_converged=change,
        audit=final,
        stalls=[stall.seconds for stall in watcher.stalls],
        longest_quiet=watcher.longest_quiet,
        takeovers=[handover.seconds for handover in watcher.takeovers],
        joins=[handover.seconds for handover in watcher.joins],
        unexpected_exits=list(run.fleet.unexpected_exits),
        pool_full_lines=run.fleet.log_lines("Connection pool is full"),
        traceback_lines=run.fleet.log_lines("Traceback"),
        notes=[*run.notes, *_unsettled(watcher), *_examples(final.examples)],
        cloud_calls=_cloud_calls(run.cloud),
    )


def _cloud_calls(cloud: ServedCloud) -> dict[str, int]:
    """The calls the cloud served by operation (list calls count pages); empty if it cannot say."""
    try:
        return cloud.calls()
    except Exception:  # the figures stand without them
        return {}


def _unsettled(watcher: Watcher) -> list[str]:
    """For a run that did not end converged: which stacks were not, and records still in flight."""
    snapshot = watcher.latest
    if watcher.converged_since is not None or snapshot is None:
        return []
    stacks = sorted(
        f"{name} {row.status}" for name, row in snapshot.stacks.items() if row.status != "CONVERGED"
    )
    in_flight = sum(count for status, count in snapshot.records.items() if status.endswith("IN_PROGRESS"))
    shown = ", ".join(stacks[:EXAMPLE_STACKS]) + (", ..." if len(stacks) > EXAMPLE_STACKS else "")
    return [
        f"not converged at the end: {shown or 'every stack CONVERGED at an older commit'}",
        f"records in progress {in_flight}",
    ]


def _examples(examples: Mapping[str, Sequence[str]]) -> list[str]:
    return [f"{figure} e.g. {', '.join(names[:3])}" for figure, names in examples.items() if names]
