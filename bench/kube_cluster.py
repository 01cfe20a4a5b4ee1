"""A Kubernetes cluster shaped like Magnum's on the simulated cloud: its convergence against the
floor the cloud sets, then a commit scaling its minions by 100 and the cloud calls that commit made.

    python -m bench.kube_cluster --workers 1000 --lease 120
    python -m bench.kube_cluster --workers 10 --interval 2 --no-scale     # a quick look

The cluster (`bench.kube_cluster_templates`): a network, a router, two security groups, an Octavia
load balancer with a listener, a pool and a health monitor in front of `--masters` masters (each a
pool member), and a resource group of `--workers` minions. Every node is a port, a server booted
with SOFTWARE_CONFIG, a floating IP, a volume and its attachment, and a script deployment
(`sleep --script-seconds`) run by the simulated cloud's agents, which poll every `--interval` s
(in a process of their own, their scripts reaching the agent API, as `reconciler run` runs them).
The cloud answers each call in `--latency` s with at most `--limit` calls in flight, and a server,
a volume or a load balancer's change takes `--active` s. One engine, SQLite, real clock; its
shards' leases last `--lease` s and are renewed on a thread of their own, as the daemon's are.

The floor is the longest of four bounds no engine can beat:

- calls: every call the run made passes through the cloud's `limit` slots,
  ceil(calls / limit) x latency;
- nodes: the network before the first port (net, subnet, router interface: 3 calls one after the
  other), then every node's port and server through the slots, ceil(2 x nodes / limit) x latency,
  then the last server's `active`, then its agent's poll `interval` (a deployment published just
  after a poll waits that long) and its script, `script_seconds`;
- load balancer: Octavia takes one change of a load balancer's tree at a time, each a call and
  `active`: the load balancer, its listener, its pool, its health monitor and the masters' members
  (one change when they are added together) are 5 x (latency + active);
- masters: their group takes the pool's id, so a master's port waits for the network and subnet
  the load balancer sits on (2 calls), the load balancer, its listener and its pool (3 x (latency +
  active)); then its port and server (2 calls), `active`, its agent's poll `interval` and its script.

Beside the first convergence's time: the CPU of this process (the engine, the cloud, the agent
API) and how busy the whole machine's CPUs were meanwhile (`machine_cpu`): a run whose cores are
all busy is bounded by the machine, its agents' machines booting beside the daemon.

Then a commit sets the minions to `--workers + 100`. Printed: the calls that commit made, per
operation and collection, and whether exactly the 100 new minions' resources were made (creates
and attachments only for them: no update, delete or get of anything that was there, and list calls
only the observation's pages).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench.kube_cluster_probe import AnswerProbe
from bench.kube_cluster_templates import files
from bench.machine_cpu import MachineCpu
from bench.sim_agents_fleet import own_cpu
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings, Latency
from reconciler.agent.agent_gateway import AgentAddress
from reconciler.daemon.agent_api import AgentApi
from reconciler.daemon.agent_server import AgentServer
from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.collector import tune_process
from reconciler.daemon.signal_doorbell import SignalDoorbell
from reconciler.daemon.sim_agents_process import AgentsProcess
from reconciler.daemon.software_records import StoredSoftware
from reconciler.engine import DesiredGeneration, Engine, EngineSettings, Policy, SoleWorkerLeases, StackStatus
from reconciler.templates import DirectorySource, Limits, load_stack
from state.lease_settings import LeaseSettings
from state.store import open_store
from timekeeping import SystemClock

STACK = "cluster"
LIMITS = Limits(max_template_bytes=64 << 20)
NODE_KINDS = ("ports", "servers", "floatingips", "volumes")  # made once per node
SCALE_STEP = 100
EXTERNAL_NETWORK = "cluster-external"


@dataclass(frozen=True)
class Floor:
    calls: float
    nodes: float
    load_balancer: float
    masters: float

    @property
    def seconds(self) -> float:
        return max(self.calls, self.nodes, self.load_balancer, self.masters)


def floor_of(arguments: argparse.Namespace, calls: int) -> Floor:
    latency, limit, active = arguments.latency, arguments.limit, arguments.active
    nodes = arguments.workers + arguments.masters
    agent = arguments.interval + arguments.script_seconds  # a deployment published just after a poll
    return Floor(
        calls=math.ceil(calls / limit) * latency,
        nodes=3 * latency + math.ceil(2 * nodes / limit) * latency + active + agent,
        load_balancer=5 * (latency + active),
        masters=(2 * latency + 3 * (latency + active) + 2 * latency + active + agent)
        if arguments.masters
        else 0.0,
    )


class Cluster:
    """The engine, the cloud, the agent API and the agents of one run."""

    def __init__(self, arguments: argparse.Namespace, workdir: Path) -> None:
        self.arguments = arguments
        self.workdir = workdir
        self.clock = SystemClock()
        leases = LeaseSettings(lease_seconds=arguments.lease, renew_seconds=arguments.lease / 3)
        self.store = open_store(f"sqlite:///{workdir / 'state.sqlite'}", clock=self.clock, settings=leases)
        # the agent API rings the engine when it keeps a signal, as the daemon wires it
        doorbell = SignalDoorbell()
        self.agent_api = AgentServer(
            "127.0.0.1",
            0,
            lambda links: AgentApi(self.store.software(), links, on_resource_signal=doorbell.ring_resources),
        )
        self.agent_api.start()
        self.probe = AnswerProbe(*self.agent_api.address)
        settings = CloudSettings(
            latency=Latency(arguments.latency),
            time_to_active=arguments.active,
            max_concurrent=arguments.limit,
        )
        self.cloud = SimulatedCloud(settings, clock=self.clock.now, sleep=self.clock.sleep)
        # the seeded public network's /24 holds too few floating IPs for a thousand nodes
        external = self.cloud.create("networks", {"name": EXTERNAL_NETWORK, "router:external": True})
        subnet = {"name": f"{EXTERNAL_NETWORK}-subnet", "network_id": external["id"], "cidr": "172.16.0.0/20"}
        self.cloud.create("subnets", subnet)
        self.setup_calls = Counter(self.cloud.calls_by_collection)
        software = (StoredSoftware(self.store.software()), self.agent_api.links)
        roots = CloudRoot(self.clock, sim=SimulatedProvider(self.cloud), software=software)
        held = SoleWorkerLeases(self.store, "bench", self.clock)
        for shard in range(self.store.settings.shard_count):
            held.want(shard)  # the cluster's nested stacks are spread over every shard
        # renewed on a thread of their own, as the daemon's shard keeper does: a pass over a
        # thousand nested stacks on a busy machine can outlast a lease
        self.renewal = held.renewed_meanwhile()
        self.renewal.__enter__()
        engine_settings = EngineSettings(
            pool_size=arguments.limit, readiness_poll=arguments.readiness_poll, max_sleep=arguments.max_sleep
        )
        self.engine = Engine(
            self.store,
            roots,
            self.clock,
            "bench",
            leases=held,
            sleeper=self.clock,
            settings=engine_settings,
            random=random.Random(1),
        )
        doorbell.engine = self.engine
        # the agents run in a process of their own, their scripts reaching the agent API, as
        # `reconciler run` runs them
        self.agents = AgentsProcess(
            lambda: self.cloud,
            workdir / "agents",
            interval=arguments.interval,
            time_limit=600,
            scan_interval=0.25,
            agent_address=AgentAddress.of(self.agent_api.links.agent_url, self.agent_api.address),
        )
        self.repo = workdir / "repo"
        self.repo.mkdir()
        for name, text in files().items():
            (self.repo / name).write_text(text)

    def converge(self, commit: str, minions: int) -> tuple[float, StackStatus]:
        parameters = {
            "number_of_masters": self.arguments.masters,
            "number_of_minions": minions,
            "script_seconds": self.arguments.script_seconds,
            "external_network": EXTERNAL_NETWORK,
        }
        definition = load_stack(
            DirectorySource(self.repo), "kubecluster.yaml", parameters=parameters, limits=LIMITS
        )
        started = time.perf_counter()
        self.engine.submit(STACK, DesiredGeneration(commit, Policy("sim", True, True, 3_600.0), definition))
        report = self.engine.converge([STACK], self.clock.now() + 1)[STACK]
        while not report.settled and time.perf_counter() < started + 3_600:
            # the engine returns when it has nothing to wake for while agents still run scripts
            report = self.engine.converge([STACK], self.clock.now() + 1)[STACK]
        elapsed = time.perf_counter() - started
        if report.status is not StackStatus.CONVERGED:
            raise SystemExit(f"{commit}: {report.status.value} {report.failures[:3]}")
        return elapsed, report.status

    def close(self) -> None:
        self.probe.stop()
        self.renewal.__exit__(None, None, None)
        self.agents.stop()
        self.engine.close()
        self.agent_api.stop()
        self.store.close()


def calls_since(cloud: SimulatedCloud, before: Counter[tuple[str, str]]) -> Counter[tuple[str, str]]:
    now = Counter(cloud.calls_by_collection)
    now.subtract(before)
    return +now


def shown(calls: Counter[tuple[str, str]]) -> str:
    return ", ".join(
        f"{operation} {collection} {count}" for (operation, collection), count in sorted(calls.items())
    )


def only_new_minions(calls: Counter[tuple[str, str]], added: int) -> list[str]:
    """What the scale-out did beyond making `added` minions and observing: empty when nothing."""
    wrong: list[str] = []
    for kind in NODE_KINDS:
        if calls["create", kind] != added:
            wrong.append(f"{calls['create', kind]} creates of {kind}, not {added}")
    # a volume attachment is Nova's os-volume_attachments call on its server, the one change allowed
    if calls["update", "servers"] != added:
        wrong.append(f"{calls['update', 'servers']} attachments, not {added}")
    for (operation, collection), count in calls.items():
        if operation in ("delete", "get") or (operation == "update" and collection != "servers"):
            wrong.append(f"{count} x {operation} {collection}")
        if operation == "create" and collection not in NODE_KINDS:
            wrong.append(f"{count} creates of {collection}")
    return wrong


def seconds_above_zero(text: str) -> float:
    """An engine pace given on the command line: a number of seconds above 0."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not seconds > 0 or math.isinf(seconds):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=1_000, help="minions at the first commit")
    parser.add_argument("--masters", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per cloud call")
    parser.add_argument(
        "--active", type=float, default=2.0, help="seconds a server, volume or LB change takes"
    )
    parser.add_argument("--limit", type=int, default=200, help="cloud calls in flight at once")
    parser.add_argument("--interval", type=float, default=10.0, help="the agents' poll interval")
    parser.add_argument("--script-seconds", type=float, default=1.0, help="each deployment's script")
    parser.add_argument("--no-scale", action="store_true", help="stop after the first convergence")
    parser.add_argument(
        "--readiness-poll",
        type=seconds_above_zero,
        default=0.25,
        help=f"seconds between the engine's observations of resources in progress (the daemon's: "
        f"{EngineSettings.readiness_poll:g})",
    )
    parser.add_argument(
        "--max-sleep",
        type=seconds_above_zero,
        default=0.05,
        help=f"the engine's longest wait between passes (the daemon's: {EngineSettings.max_sleep:g})",
    )
    parser.add_argument(
        "--lease", type=float, default=15.0, help="seconds a shard's lease lasts (renewed every third of it)"
    )
    arguments = parser.parse_args()
    threading.stack_size(512 * 1024)  # a thread per agent: a thousand need no 8 MiB stacks
    workdir = Path(tempfile.mkdtemp(prefix="bench-kube-"))
    cluster = Cluster(arguments, workdir)
    try:
        tune_process()
        cluster.agents.start()
        cluster.probe.start()
        cpu, machine = time.process_time(), MachineCpu.now()
        elapsed, status = cluster.converge("c1", arguments.workers)
        cpu, machine_after = time.process_time() - cpu, MachineCpu.now()
        first = calls_since(cluster.cloud, cluster.setup_calls)
        floor = floor_of(arguments, sum(first.values()))
        print(
            f"{arguments.masters} masters + {arguments.workers} minions, "
            f"{arguments.latency * 1000:.0f} ms a call, {arguments.limit} concurrent, "
            f"{arguments.active:g} s to ACTIVE, agents poll every {arguments.interval:g} s, "
            f"scripts {arguments.script_seconds:g} s: {status.value} in {elapsed:.2f} s"
        )
        print(
            f"  floor {floor.seconds:.2f} s = max(calls {floor.calls:.2f}, nodes {floor.nodes:.2f}, "
            f"load balancer {floor.load_balancer:.2f}, masters {floor.masters:.2f}); "
            f"ratio {elapsed / floor.seconds:.2f}"
        )
        print(
            f"  {sum(first.values())} calls, peak {cluster.cloud.peak_in_flight} in flight; "
            f"CPU {cpu:.2f} s in this process (the agents' process and their sandboxes apart); "
            f"load average {os.getloadavg()[0]:.2f}"
        )
        if machine is not None and machine_after is not None:
            agents_cpu = own_cpu(cluster.agents.pid)
            print(f"  {machine_after.busy_since(machine)}; the agents' process {agents_cpu:.1f} s of them")
        print(f"  calls: {shown(first)}")
        print(f"  {cluster.probe.summary()}")
        if arguments.no_scale:
            return
        scaled = arguments.workers + SCALE_STEP
        elapsed, status = cluster.converge("c2", scaled)
        calls = calls_since(cluster.cloud, first + cluster.setup_calls)
        load = os.getloadavg()[0]
        print(f"scaled to {scaled} minions: {status.value} in {elapsed:.2f} s; load average {load:.2f}")
        print(f"  calls: {shown(calls)}")
        print(f"  {cluster.probe.summary()} (both commits)")
        wrong = only_new_minions(calls, SCALE_STEP)
        print(
            "  only the new minions touched"
            if not wrong
            else f"  NOT only the new minions: {'; '.join(wrong)}"
        )
    finally:
        cluster.close()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
