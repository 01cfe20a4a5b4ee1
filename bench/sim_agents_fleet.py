"""Servers with deployments on the simulated cloud, their scripts run by the cloud's own agents.

    python -m bench.sim_agents_fleet                       # 1,000 servers x 3 deployments
    python -m bench.sim_agents_fleet --servers 100 --script-seconds 1 --interval 5

One stack: `--servers` servers booted with SOFTWARE_CONFIG user data, each with `--deployments`
script deployments (`sleep --script-seconds`), converged on the real clock by one engine over
SQLite, the agent API on loopback, the simulated cloud's agents polling every `--interval`
seconds and running each script in its server's sandbox, in their own process as `reconciler run`
runs them (`AgentsProcess`: booted as machines, reaching the agent API through the gateway).

A server's floor is the time its agent cannot beat once its deployments are published: up to one
poll interval, then its scripts one after the other. Printed: each server's time from its last
deployment's publication to its last signal (p50, p99, max) against that floor, the stack's
time to CONVERGED, the CPU of this process (engine and agent API: the daemon's) and of its
children (the agents' process and the scripts' sandboxes), the load average around the run, and
how busy the whole machine's CPUs were from the agents' start to the convergence (`machine_cpu`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import yaml

from bench.machine_cpu import MachineCpu
from providers.heat.agent_links import AgentLinks
from providers.heat.software_records import IN_PROGRESS, Deployment
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from reconciler.agent.agent_gateway import AgentAddress
from reconciler.daemon.agent_api import AgentApi
from reconciler.daemon.agent_server import AgentServer
from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.collector import tune_process
from reconciler.daemon.signal_doorbell import SignalDoorbell
from reconciler.daemon.sim_agents_process import AgentsProcess
from reconciler.daemon.software_records import StoredSoftware
from reconciler.engine import DesiredGeneration, Engine, Policy, SoleWorkerLeases, StackStatus
from reconciler.templates import DirectorySource, Limits, load_stack
from state.store import open_store
from timekeeping import SystemClock


class TimedRecords(StoredSoftware):
    """The software records, noting when each server's deployments were last published."""

    published: dict[str, float]
    servers_by_token: dict[str, str]

    def submit_deployment(self, deployment: Deployment, token_digest: str | None) -> Future[None]:
        written = super().submit_deployment(deployment, token_digest)
        if deployment.published and deployment.status == IN_PROGRESS:
            written.add_done_callback(lambda _: self._published(deployment))
        return written

    def _published(self, deployment: Deployment) -> None:
        self.published[deployment.server_id] = time.time()
        inputs = {item["name"]: item.get("value") for item in deployment.entry.get("inputs") or []}
        token = str(inputs.get("deploy_signal_id", "")).rsplit("/", 1)[-1]
        self.servers_by_token[token] = deployment.server_id


class TimedApi(AgentApi):
    """The agent API, noting when each token's signal was recorded."""

    signalled: dict[str, float]
    received: dict[str, float]

    def deployment_signal(self, token: str, body: Mapping[str, Any] | None) -> Future[str | None]:
        self.received[token] = time.time()
        recorded = super().deployment_signal(token, body)
        recorded.add_done_callback(lambda _: self.signalled.__setitem__(token, time.time()))
        return recorded


def template(servers: int, deployments: int, script_seconds: float) -> str:
    resources: dict[str, Any] = {
        "config": {
            "type": "OS::Heat::SoftwareConfig",
            "properties": {"group": "script", "config": f"#!/bin/sh\nsleep {script_seconds:g}\necho done\n"},
        }
    }
    for number in range(servers):
        resources[f"server_{number}"] = {
            "type": "OS::Nova::Server",
            "properties": {
                "image": "cirros-0.6.2-x86_64-disk",
                "flavor": "m1.tiny",
                "user_data_format": "SOFTWARE_CONFIG",
            },
        }
        for step in range(deployments):
            resources[f"deployment_{number}_{step}"] = {
                "type": "OS::Heat::SoftwareDeployment",
                "properties": {
                    "config": {"get_resource": "config"},
                    "server": {"get_resource": f"server_{number}"},
                    "name": f"step-{step}",
                },
            }
    return yaml.safe_dump({"heat_template_version": "2018-08-31", "resources": resources})


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def measure(
    workdir: Path,
    *,
    servers: int,
    deployments: int,
    script_seconds: float,
    interval: float,
    scripts_reach_api: bool = True,
) -> dict[str, float]:
    clock = SystemClock()
    store = open_store(f"sqlite:///{workdir / 'state.sqlite'}", clock=clock)
    api: list[TimedApi] = []
    doorbell = SignalDoorbell()  # the agent API rings the engine when it keeps a signal, as the daemon does

    def timed_api(links: AgentLinks) -> AgentApi:
        api.append(TimedApi(store.software(), links, on_resource_signal=doorbell.ring_resources))
        api[0].signalled, api[0].received = {}, {}
        return api[0]

    agent_api = AgentServer("127.0.0.1", 0, timed_api)
    agent_api.start()
    cloud = SimulatedCloud(clock=clock.now)
    records = TimedRecords(store.software())
    records.published, records.servers_by_token = {}, {}
    roots = CloudRoot(clock, sim=SimulatedProvider(cloud), software=(records, agent_api.links))
    leases = SoleWorkerLeases(store, "bench", clock)
    for shard in range(store.settings.shard_count):
        leases.want(shard)
    engine = Engine(store, roots, clock, "bench", leases=leases, sleeper=clock, random=random.Random(1))
    doorbell.engine = engine
    agents = AgentsProcess(
        lambda: cloud,
        workdir / "agents",
        interval=interval,
        time_limit=600,
        scan_interval=0.5,
        agent_address=AgentAddress.of(agent_api.links.agent_url, agent_api.address)
        if scripts_reach_api
        else None,
    )
    (workdir / "repo").mkdir()
    (workdir / "repo" / "stack.yaml").write_text(template(servers, deployments, script_seconds))
    limits = Limits(max_template_bytes=64 << 20)
    definition = load_stack(DirectorySource(workdir / "repo"), "stack.yaml", limits=limits)
    tune_process()  # as `reconciler run` runs the daemon, whose process this stands for
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before, machine_before = os.getloadavg()[0], MachineCpu.now()
    agents.start()
    started = time.time()
    # renewed on a thread of their own, as the daemon's shard keeper does: a pass over a thousand
    # servers' deployments on a busy machine can outlast a lease
    renewal = leases.renewed_meanwhile()
    renewal.__enter__()
    try:
        engine.submit("fleet", DesiredGeneration("c1", Policy("sim", True, True, 3_600.0), definition))
        report = engine.converge(["fleet"], clock.now() + 1)["fleet"]
        while not report.settled and time.time() < started + 3_600:
            # the engine's own convergence returns when it has nothing to wake for, while the
            # agents are still on their way: keep turning
            report = engine.converge(["fleet"], clock.now() + 1)["fleet"]
        converged, machine_converged = time.time() - started, MachineCpu.now()
    finally:
        renewal.__exit__(None, None, None)
        agents_cpu = own_cpu(agents.pid)
        agents.stop()
        engine.close()
        agent_api.stop()
    load_after = os.getloadavg()[0]
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if report.status is not StackStatus.CONVERGED:
        raise SystemExit(f"the stack did not converge: {report.status} {report.failures[:3]}")
    store.close()
    signalled: dict[str, float] = {}
    for token, at in api[0].signalled.items():
        server = records.servers_by_token[token]
        signalled[server] = max(signalled.get(server, 0.0), at)
    latencies = [signalled[server] - published for server, published in records.published.items()]
    floor = interval + deployments * script_seconds
    runs = script_runs(workdir / "agents")
    parts = _breakdown(records, api[0].signalled, runs)
    sent = [api[0].received[token] - ended for token, (_, ended) in runs.items() if token in api[0].received]
    parts["signal_received_after_script_p50_s"] = _percentile(sent, 0.5)
    parts["signal_received_after_script_max_s"] = max(sent, default=0.0)
    kept = [
        api[0].signalled[token] - at for token, at in api[0].received.items() if token in api[0].signalled
    ]
    parts["signal_kept_after_received_p50_s"] = _percentile(kept, 0.5)
    parts["signal_kept_after_received_max_s"] = max(kept, default=0.0)
    return {
        **parts,
        "servers": servers,
        "deployments": servers * deployments,
        "floor_s": floor,
        "server_latency_p50_s": _percentile(latencies, 0.5),
        "server_latency_p99_s": _percentile(latencies, 0.99),
        "server_latency_max_s": max(latencies),
        "max_over_floor": max(latencies) / floor,
        "stack_converged_s": converged,
        "process_cpu_s": (cpu_after.ru_utime - cpu_before.ru_utime)
        + (cpu_after.ru_stime - cpu_before.ru_stime),
        "agents_process_cpu_s": agents_cpu,
        "agents_and_scripts_cpu_s": (children_after.ru_utime - children_before.ru_utime)
        + (children_after.ru_stime - children_before.ru_stime),
        "load_average_before": load_before,
        "load_average_after": load_after,
        **_machine_spent(machine_before, machine_converged),
    }


def _machine_spent(before: MachineCpu | None, after: MachineCpu | None) -> dict[str, float]:
    """The whole machine's CPU from the agents' start to the stack's convergence."""
    if before is None or after is None:
        return {}
    busy, whole, stolen = after.spent_since(before)
    return {"machine_busy_core_s": busy, "machine_core_s": whole, "machine_stolen_s": stolen}


def own_cpu(pid: int | None) -> float:
    """The CPU seconds process `pid` used itself (its children's not counted)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def script_runs(agents_dir: Path) -> dict[str, tuple[float, float]]:
    """When each run started and ended, by its signal token, as the agents recorded them."""
    runs: dict[str, tuple[float, float]] = {}
    for record in agents_dir.glob("*/deployed.json"):
        for run in json.loads(record.read_text(encoding="utf-8")).values():
            if run.get("signal_id") and "started" in run:
                runs[str(run["signal_id"]).rsplit("/", 1)[-1]] = (run["started"], run["ended"])
    return runs


def _breakdown(
    records: TimedRecords, signalled: Mapping[str, float], runs: Mapping[str, tuple[float, float]]
) -> dict[str, float]:
    """Where each server's time after its last publication went: waiting for the agent's poll
    (to its first script start after it), running its scripts (sandbox included) and in between,
    and from its last script's end to its last signal kept; the max of each over the servers."""
    by_server: dict[str, list[tuple[float, float, float]]] = {}
    for token, (started, ended) in runs.items():
        server = records.servers_by_token.get(token)
        if server is not None and token in signalled:
            by_server.setdefault(server, []).append((started, ended, signalled[token]))
    waits, scripts, signals = [], [], []
    for server, published in records.published.items():
        after = sorted(run for run in by_server.get(server, []) if run[1] >= published)
        if not after:
            continue
        waits.append(max(0.0, after[0][0] - published))
        scripts.append(after[-1][1] - max(after[0][0], published))
        signals.append(max(run[2] - run[1] for run in after))
    return {
        "poll_wait_max_s": max(waits, default=0.0),
        "scripts_max_s": max(scripts, default=0.0),
        "signal_after_script_max_s": max(signals, default=0.0),
        "signal_after_script_p50_s": _percentile(signals, 0.5),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", type=int, default=1_000)
    parser.add_argument("--deployments", type=int, default=3)
    parser.add_argument("--script-seconds", type=float, default=2.0)
    parser.add_argument("--interval", type=float, default=10.0, help="the agents' poll interval")
    parser.add_argument(
        "--closed-sandbox", action="store_true", help="scripts reach no network (no relay in their sandbox)"
    )
    options = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-sim-agents-"))
    try:
        figures = measure(
            workdir,
            servers=options.servers,
            deployments=options.deployments,
            script_seconds=options.script_seconds,
            interval=options.interval,
            scripts_reach_api=not options.closed_sandbox,
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for name, value in figures.items():
        print(f"{name}: {value:,.3f}")


if __name__ == "__main__":
    main()
