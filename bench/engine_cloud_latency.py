"""10,000 servers on a cloud answering each call in 50 ms, ACTIVE 2 s after create, 200 calls at once.

That cloud limit sets a floor no engine can beat: every create waits its turn among 200 slots
(10,000 x 50 ms / 200 = 2.5 s: the last create returns no sooner), and the server it made turns
ACTIVE 2 s after that. A list call sent 50 ms before then already sees it ACTIVE (the cloud reads
its state when it answers), so the floor is 4.5 s. It leaves out what the provider itself must
call before the first create (resolving the image and flavor names: two list calls) and the CPU
the simulated cloud spends per call, so no run can reach it.

The figure is the wall time from submit to CONVERGED, against that floor, with the process's CPU
time over the same span, the load average, and the CPU time the machine's hypervisor took from
this virtual machine meanwhile (`steal` in /proc/stat, summed over its CPUs): on a shared host a
run that lost a second or more to it measures the neighbours, not the engine. `--cloud-alone`
also pushes the same number of creates through an identical cloud from as many plain threads, no
engine: what the in-process cloud costs on this machine by itself. Real clock, simulated cloud
in-process, SQLite.

The cyclic garbage collector is a large share of the run: the process holds the template, the
engine's records and the simulated cloud's whole inventory, and every full collection walks all of
it while every thread waits. `--tuned-gc` makes the choices `reconciler run` and `reconciler apply`
make once set up (`reconciler.daemon.collector`): `gc.freeze()` (what is alive now is never walked
again), a first-generation threshold of 50,000 allocations instead of 700, and a 20 ms switch
interval instead of 5 ms (fewer wake-ups of the threads waiting for the interpreter lock).

    python -m bench.engine_cloud_latency --servers 10000
    python -m bench.engine_cloud_latency --servers 10000 --cloud-alone
    python -m bench.engine_cloud_latency --servers 10000 --tuned-gc
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from bench.machine_cpu import MachineCpu
from providers.interface import Marker
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings, Latency
from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.collector import tune_process
from reconciler.engine import DesiredGeneration, Engine, EngineSettings, Policy, SoleWorkerLeases
from reconciler.templates import DirectorySource, Limits, load_stack
from state.store import open_store
from timekeeping import SystemClock

LIMITS = Limits(max_template_bytes=1 << 30, max_yaml_nodes=50_000_000)


def template(servers: int) -> str:
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    for index in range(servers):
        lines.append(
            f"  server{index}:\n    type: OS::Nova::Server\n"
            f"    properties: {{name: s{index}, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}}"
        )
    return "\n".join(lines) + "\n"


def stolen_seconds() -> float | None:
    """CPU seconds the hypervisor has taken from this machine since boot (None: not Linux)."""
    counters = MachineCpu.now()
    return None if counters is None else counters.stolen


def _collector_time() -> list[float]:
    """[seconds, collections] the cyclic garbage collector runs from now on, kept up to date."""
    spent = [0.0, 0]
    started = [0.0]

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            spent[0] += time.perf_counter() - started[0]
            spent[1] += 1

    gc.callbacks.append(watch)
    return spent


def _cloud(arguments: argparse.Namespace, clock: SystemClock) -> SimulatedCloud:
    """The cloud of the figure: its latency per call, time to ACTIVE and concurrency limit."""
    settings = CloudSettings(
        latency=Latency(arguments.latency), time_to_active=arguments.active, max_concurrent=arguments.limit
    )
    return SimulatedCloud(settings, clock=clock.now, sleep=clock.sleep)


def cloud_alone(arguments: argparse.Namespace) -> tuple[float, float]:
    """Wall and CPU seconds for `--servers` creates on an identical cloud from `--limit` threads."""
    clock = SystemClock()
    cloud = _cloud(arguments, clock)
    provider = SimulatedProvider(cloud)
    numbers = iter(range(arguments.servers))
    lock = threading.Lock()

    def create_some() -> None:
        while True:
            with lock:
                index = next(numbers, None)
            if index is None:
                return
            properties = {"name": f"s{index}", "image": "cirros-0.6.2-x86_64-disk", "flavor": "m1.small"}
            provider.create("OS::Nova::Server", properties, Marker("alone", f"server{index}", str(index)))

    threads = [threading.Thread(target=create_some) for _ in range(arguments.limit)]
    started, cpu = time.perf_counter(), time.process_time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--servers", type=int, default=10_000)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per cloud call")
    parser.add_argument("--active", type=float, default=2.0, help="seconds from create to ACTIVE")
    parser.add_argument("--limit", type=int, default=200, help="cloud calls in flight at once")
    parser.add_argument(
        "--cloud-alone", action="store_true", help="also time the creates on the cloud alone, no engine"
    )
    parser.add_argument(
        "--tuned-gc",
        action="store_true",
        help="the collector and switch interval as reconciler run and apply set them",
    )
    arguments = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-latency-"))
    clock = SystemClock()
    store = open_store(f"sqlite:///{workdir / 'state.sqlite'}", clock=clock)
    cloud = _cloud(arguments, clock)
    leases = SoleWorkerLeases(store, "bench", clock)
    # Only the stack's own shard: renewing all 64 every 5 s would be 64 transactions in the loop's
    # pass (a daemon renews its leases on a thread of their own).
    leases.want(store.ensure_stack("servers").shard)
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
    collected = _collector_time()
    if arguments.tuned_gc:
        tune_process()
    started, cpu, stolen = time.perf_counter(), time.process_time(), stolen_seconds()
    loop_cpu = time.thread_time()  # the engine's loop runs on this thread; provider calls on the pool's
    engine.submit("servers", DesiredGeneration("c1", Policy("sim", True, True, 3600.0), definition))
    report = engine.converge(["servers"], clock.now() + 3_600)["servers"]
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    loop_cpu = time.thread_time() - loop_cpu
    stolen_after = stolen_seconds()
    steal = "n/a" if stolen is None or stolen_after is None else f"{stolen_after - stolen:.2f} s"
    collector_seconds, collections = collected[0], int(collected[1])
    load = os.getloadavg()[0]
    floor = math.ceil(arguments.servers / arguments.limit) * arguments.latency + arguments.active
    shape = f"{arguments.servers} servers, {arguments.latency * 1000:.0f} ms per call"
    shape += f", {arguments.active:.0f} s to ACTIVE, {arguments.limit} concurrent"
    print(
        f"{shape}: {report.status.value} in {elapsed:.2f} s; floor {floor:.2f} s; ratio {elapsed / floor:.2f}"
    )
    print(
        f"  CPU {cpu:.2f} s (engine and cloud threads together), of it {collector_seconds:.2f} s in "
        f"{collections} garbage collections; load average {load:.2f}; stolen by the hypervisor {steal}"
    )
    print(
        f"  the engine's loop: {loop_cpu:.2f} s CPU ({loop_cpu / arguments.servers * 1e6:.0f} µs a server); "
        f"peak concurrent calls {cloud.peak_in_flight}; calls {dict(cloud.calls)}"
    )
    engine.close()
    store.close()
    shutil.rmtree(workdir, ignore_errors=True)
    if arguments.cloud_alone:
        wall, cpu = cloud_alone(arguments)
        print(
            f"  the cloud alone: {arguments.servers} creates from {arguments.limit} threads, no engine, "
            f"in {wall:.2f} s, CPU {cpu:.2f} s (load average {os.getloadavg()[0]:.2f})"
        )


if __name__ == "__main__":
    main()
