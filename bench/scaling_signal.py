"""A scaling signal's latency: an alarm's POST to a ScalingPolicy's `alarm_url` until the group's
first create call reaches the cloud.

    python -m bench.scaling_signal                      # SQLite in a temporary file
    python -m bench.scaling_signal --database 'postgresql+psycopg:///postgres?host=/var/run/postgresql'

Converges a stack of an AutoScalingGroup of `--members` servers and a policy on the simulated
cloud, with the engine running on its own thread on the real clock and the agent API on loopback,
then POSTs Aodh's body to the policy's `alarm_url` `--signals` times (waiting for each scaling to
settle) and prints the time from each POST to the create call of the new member: the agent API
keeping the signal and waking the engine, the engine reading the shard's signals, the size
written under the lease, the group's nested stack given its new size, the create sent.

`--received-elsewhere`: the alarm reaches another daemon of the fleet (an agent API over a store
of its own, waking no engine here), as a load balancer in front of a fleet's agent APIs sends it;
on PostgreSQL the engine hears of it through the fleet's LISTEN/NOTIFY, as the daemon does.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.state_databases import scratch_database
from providers.interface import LiveResource, Marker
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings
from reconciler.daemon.agent_api import AgentApi
from reconciler.daemon.agent_server import AgentServer
from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.software_records import StoredSoftware
from reconciler.engine import DesiredGeneration, Engine, Policy, SoleWorkerLeases
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from state.store import Store, open_store
from timekeeping import SystemClock

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  members: {type: number}
resources:
  web_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 1000
      desired_capacity: {get_param: members}
      resource:
        type: OS::Nova::Server
        properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
  scale_up:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: {get_resource: web_group}
      scaling_adjustment: 1
outputs:
  up: {value: {get_attr: [scale_up, alarm_url]}}
  size: {value: {get_attr: [web_group, current_size]}}
"""
ALARM = {"alarm_id": "bench", "previous": "ok", "current": "alarm", "reason": "bench"}


class TimedCloud(SimulatedProvider):
    """The simulated cloud, noting when each server create call arrives."""

    def __init__(self, cloud: SimulatedCloud) -> None:
        super().__init__(cloud)
        self.server_creates: list[float] = []

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        if type_name == "OS::Nova::Server":
            self.server_creates.append(time.perf_counter())
        return super().create(type_name, properties, marker)


def _engine_loop(engine: Engine, clock: SystemClock, stop: threading.Event) -> None:
    while not stop.is_set():
        progress = engine.step()
        engine.wait(progress, clock.now() + 1.0)  # as the daemon's loop waits: a signal cuts it short


def _until(condition: Any, seconds: float) -> None:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise SystemExit("timed out waiting for the group")
        time.sleep(0.002)


def measure(store: Store, members: int, signals: int, elsewhere: Store | None = None) -> list[float]:
    """Seconds from each POST to the new member's create call; with `elsewhere`, POSTed to an agent
    API over that store (another daemon's) instead of this engine's."""
    clock = SystemClock()
    cloud = TimedCloud(SimulatedCloud(CloudSettings(), clock=clock.now, sleep=clock.sleep))
    engines: list[Engine] = []

    def signal_kept() -> None:
        for engine in engines:
            engine.signal_arrived()

    agent = AgentServer(
        "127.0.0.1", 0, lambda links: AgentApi(store.software(), links, store.scaling(), signal_kept)
    )
    agent.start()
    receiver = agent
    if elsewhere is not None:
        receiver = AgentServer(
            "127.0.0.1", 0, lambda links: AgentApi(elsewhere.software(), links, elsewhere.scaling())
        )
        receiver.start()
    listener = store.scaling_signal_listener(signal_kept)  # the daemon listens on PostgreSQL
    if listener is not None:
        listener.start()
    leases = SoleWorkerLeases(store, "bench", clock)
    for shard in range(store.settings.shard_count):
        leases.want(shard)
    software = (StoredSoftware(store.software()), agent.links)
    engine = Engine(
        store, CloudRoot(clock, sim=cloud, software=software), clock, "bench", leases=leases, sleeper=clock
    )
    engines.append(engine)
    stop = threading.Event()
    thread = threading.Thread(target=_engine_loop, args=(engine, clock, stop), daemon=True)
    with tempfile.TemporaryDirectory(prefix="reconciler-bench-") as directory:
        Path(directory, "web.yaml").write_text(TEMPLATE, encoding="utf-8")
        definition = load_stack(DirectorySource(Path(directory)), "web.yaml", parameters={"members": members})
    engine.submit("web", DesiredGeneration("0" * 40, Policy("sim"), definition))
    thread.start()
    latencies: list[float] = []
    try:
        _until(lambda: store.read_outputs("web").get("size") == members, 120)
        url = str(store.read_outputs("web")["up"]).replace(agent.links.agent_url, receiver.links.agent_url)
        for number in range(signals):
            before = len(cloud.server_creates)
            body = json.dumps({**ALARM, "reason": f"signal {number}"}).encode()
            request = urllib.request.Request(
                url, data=body, method="POST", headers={"Content-Type": "application/json"}
            )
            sent = time.perf_counter()
            with urllib.request.urlopen(request, timeout=10):
                pass
            _until(lambda before=before: len(cloud.server_creates) > before, 30)
            latencies.append(cloud.server_creates[before] - sent)
            size = members + number + 1
            _until(lambda size=size: store.read_outputs("web").get("size") == size, 60)
    finally:
        stop.set()
        thread.join(10)
        engine.close()
        if listener is not None:
            listener.stop()
        if receiver is not agent:
            receiver.stop()
        agent.stop()
    return latencies


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="a database server URL (default: SQLite in a temporary file)")
    parser.add_argument("--members", type=int, default=10, help="members of the group before the signals")
    parser.add_argument("--signals", type=int, default=10, help="signals sent, one after another")
    parser.add_argument(
        "--received-elsewhere",
        action="store_true",
        help="POST to another daemon's agent API over the database",
    )
    arguments = parser.parse_args(argv)
    with scratch_database(arguments.database) as url:
        store = open_store(url, clock=SystemClock())
        other = (
            open_store(url, clock=SystemClock(), upgrade_schema=False)
            if arguments.received_elsewhere
            else None
        )
        try:
            latencies = measure(store, arguments.members, arguments.signals, other)
        finally:
            store.close()
            if other is not None:
                other.close()
    ordered = sorted(latencies)
    print(
        f"scaling signal to first create call ({store.dialect}, {arguments.members} members, "
        f"{'received by another daemon, ' if other is not None else ''}"
        f"{len(latencies)} signals): median {statistics.median(ordered) * 1000:.0f} ms, "
        f"max {ordered[-1] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
