"""10,000 servers on a cloud answering each call in 50 ms, ACTIVE 2 s after create, 200 calls at once.

That cloud limit sets a floor no engine can beat: every create waits its turn among 200 slots
(10,000 x 50 ms / 200 = 2.5 s), and the last server still needs 2 s to become ACTIVE and one list
call to be seen so. The figure is the wall time from submit to CONVERGED, against that floor.
Real clock, simulated cloud in-process, SQLite.

    python -m bench.engine_cloud_latency --servers 10000
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings, Latency
from reconciler.daemon.clouds import CloudRoot
from reconciler.engine import DesiredGeneration, Engine, EngineSettings, Policy, SoleWorkerLeases
from reconciler.templates import DirectorySource, Limits, load_stack
from state.clock import SystemClock
from state.store import open_store

LIMITS = Limits(max_template_bytes=1 << 30, max_yaml_nodes=50_000_000)


def template(servers: int) -> str:
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    for index in range(servers):
        lines.append(
            f"  server{index}:\n    type: OS::Nova::Server\n"
            f"    properties: {{name: s{index}, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}}"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--servers", type=int, default=10_000)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per cloud call")
    parser.add_argument("--active", type=float, default=2.0, help="seconds from create to ACTIVE")
    parser.add_argument("--limit", type=int, default=200, help="cloud calls in flight at once")
    arguments = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-latency-"))
    clock = SystemClock()
    store = open_store(f"sqlite:///{workdir / 'state.sqlite'}", clock=clock)
    cloud = SimulatedCloud(
        CloudSettings(
            latency=Latency(arguments.latency),
            time_to_active=arguments.active,
            max_concurrent=arguments.limit,
        ),
        clock=clock.now,
        sleep=clock.sleep,
    )
    leases = SoleWorkerLeases(store, "bench", clock)
    for shard in range(store.settings.shard_count):
        leases.want(shard)
    settings = EngineSettings(pool_size=arguments.limit, readiness_poll=0.25, max_sleep=0.05)
    engine = Engine(
        store,
        CloudRoot(clock, sim=SimulatedProvider(cloud)),
        clock,
        "bench",
        leases=leases,
        sleeper=clock,
        settings=settings,
    )
    (workdir / "stack.yaml").write_text(template(arguments.servers))
    definition = load_stack(DirectorySource(workdir), "stack.yaml", limits=LIMITS)
    started = time.perf_counter()
    engine.submit("servers", DesiredGeneration("c1", Policy("sim", True, True, 3600.0), definition))
    report = engine.converge(["servers"], clock.now() + 3_600)["servers"]
    elapsed = time.perf_counter() - started
    floor = math.ceil(arguments.servers / arguments.limit) * arguments.latency + arguments.active
    floor += arguments.latency  # the list call that sees the last server ACTIVE
    shape = f"{arguments.servers} servers, {arguments.latency * 1000:.0f} ms per call"
    shape += f", {arguments.active:.0f} s to ACTIVE, {arguments.limit} concurrent"
    print(
        f"{shape}: {report.status.value} in {elapsed:.2f} s; floor {floor:.2f} s; ratio {elapsed / floor:.2f}"
    )
    print(f"  peak concurrent calls {cloud.peak_in_flight}; calls {dict(cloud.calls)}")
    engine.close()
    store.close()


if __name__ == "__main__":
    main()
