"""Engine at scale: cold create of a 50,000-resource stack, a one-resource change, one observe pass.

The stack is N groups of (port, server, volume, attachment, value) with real dependencies, flat in
one template; the cloud is the simulated cloud in-process with zero latency, the store SQLite.
Time is a stepped clock (the engine never waits for it), so the figures are the engine's own cost.

The process runs as `reconciler run` runs it: collector tuned once set up, template loads with the
collector paused (`reconciler.daemon.collector`). With Python's defaults (`--default-gc`) a full
collection walks the two million objects alive here about once per template load, for a second or
more, and which timed step it lands in depends on how many objects the steps before made: the
figures then tell where that pause fell more than what the engine costs. The change is also
measured arriving while an observe pass is out, whose answers are checked for drift meanwhile.

    python -m bench.engine_scale --nodes 10000 [--default-gc]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import tempfile
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.collector import collector_paused, tune_process
from reconciler.engine import (
    DesiredGeneration,
    Engine,
    EngineSettings,
    Policy,
    SoleWorkerLeases,
    StackStatus,
)
from reconciler.templates import DirectorySource, Limits, load_stack
from state.store import open_store
from timekeeping.testing import SteppedClock


def node(index: int, tag: str) -> dict[str, Any]:
    """Five resources: a port on the network, a server on it, a volume attached to it, a value."""
    return {
        f"port{index}": {"type": "OS::Neutron::Port", "properties": {"network": {"get_resource": "net"}}},
        f"server{index}": {
            "type": "OS::Nova::Server",
            "properties": {
                "name": f"node-{index}",
                "image": "cirros-0.6.2-x86_64-disk",
                "flavor": "m1.small",
                "networks": [{"port": {"get_resource": f"port{index}"}}],
            },
        },
        f"volume{index}": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
        f"attachment{index}": {
            "type": "OS::Cinder::VolumeAttachment",
            "properties": {
                "instance_uuid": {"get_resource": f"server{index}"},
                "volume_id": {"get_resource": f"volume{index}"},
            },
        },
        f"label{index}": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"list_join": ["-", [tag, {"get_resource": f"server{index}"}]]}},
        },
    }


def template(nodes: int, changed: int | None = None) -> str:
    """The whole stack, as JSON (valid HOT: YAML is a superset; JSON parses several times faster)."""
    resources: dict[str, Any] = {"net": {"type": "OS::Neutron::Net"}}
    for index in range(nodes):
        resources.update(node(index, "changed" if index == changed else "node"))
    return json.dumps({"heat_template_version": "2018-08-31", "resources": resources})


# A 50,000-resource template is some 30 MB of YAML: far past Heat's size limits, on purpose.
LIMITS = Limits(max_template_bytes=1 << 30, max_yaml_nodes=50_000_000)


OBSERVE_INTERVAL = 10.0


def peak_memory_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def paused_collector(default_gc: bool) -> AbstractContextManager[None]:
    return nullcontext() if default_gc else collector_paused()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=10_000, help="groups of 5 resources (default 10,000)")
    parser.add_argument("--pool", type=int, default=8, help="provider call threads")
    parser.add_argument("--default-gc", action="store_true", help="leave the collector as Python sets it")
    arguments = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-engine-"))
    clock = SteppedClock()
    store = open_store(f"sqlite:///{workdir / 'state.sqlite'}", clock=clock)
    sim = SimulatedProvider(SimulatedCloud(clock=clock.now, sleep=clock.sleep))
    leases = SoleWorkerLeases(store, "bench", clock)
    for shard in range(store.settings.shard_count):
        leases.want(shard)
    settings = EngineSettings(pool_size=arguments.pool)
    engine = Engine(
        store, CloudRoot(clock, sim=sim), clock, "bench", leases=leases, sleeper=clock, settings=settings
    )
    policy = Policy("sim", True, True, OBSERVE_INTERVAL)
    files = DirectorySource(workdir)
    resources = arguments.nodes * 5 + 1
    if not arguments.default_gc:
        tune_process()

    (workdir / "stack.yaml").write_text(template(arguments.nodes))
    started = time.perf_counter()
    with paused_collector(arguments.default_gc):
        definition = load_stack(files, "stack.yaml", limits=LIMITS)
    loaded = time.perf_counter() - started
    engine.submit("big", DesiredGeneration("c1", policy, definition))
    report = engine.converge(["big"], clock.now() + 36_000)["big"]
    cold = time.perf_counter() - started
    print(
        f"cold create: {resources} resources {report.status.value} in {cold:.1f} s "
        f"(template load {loaded:.1f} s)"
    )
    print(f"  counts {report.counts}; peak memory {peak_memory_mib():.0f} MiB")

    (workdir / "stack.yaml").write_text(template(arguments.nodes, changed=arguments.nodes // 2))
    clock.sleep(OBSERVE_INTERVAL + 1)
    engine.converge(["big"], clock.now() + 60)  # the observe pass due by now, out of the way
    with paused_collector(arguments.default_gc):
        definition = load_stack(files, "stack.yaml", limits=LIMITS)
    started = time.perf_counter()
    definition.digest()  # the templates layer's hash of the whole definition, paid on every submit
    digest = time.perf_counter() - started
    engine.submit("big", DesiredGeneration("c2", policy, definition))
    report = engine.converge(["big"], clock.now() + 36_000)["big"]
    change = time.perf_counter() - started
    print(
        f"one-resource change: {report.status.value} in {change:.2f} s after the engine saw it "
        f"(digest {digest:.2f} s of it); {report.counts}"
    )

    clock.sleep(OBSERVE_INTERVAL + 1)  # within the lease: the worker keeps its shards
    started = time.perf_counter()
    engine.converge(["big"], clock.now() + 60)
    observe = time.perf_counter() - started
    print(f"observe pass over {resources} resources: {observe:.2f} s")

    with paused_collector(arguments.default_gc):
        definition = load_stack(files, "stack.yaml", limits=LIMITS)  # the change undone
    clock.sleep(OBSERVE_INTERVAL + 1)
    engine.step()  # the observe pass due now goes out; the commit arrives while it is
    started = time.perf_counter()
    engine.submit("big", DesiredGeneration("c3", policy, definition))
    converged_at: list[float] = []

    def note_convergence() -> None:
        run = engine.run_of("big")
        converged = run is not None and run.commit == "c3" and run.status() is StackStatus.CONVERGED
        if converged and not converged_at:
            converged_at.append(time.perf_counter() - started)

    engine.converge(["big"], clock.now() + 36_000, on_pass=note_convergence)
    handled = time.perf_counter() - started
    print(
        f"one-resource change during an observe pass: CONVERGED in {converged_at[0]:.2f} s after "
        f"the engine saw it; that observe pass's answers all checked after {handled:.2f} s"
    )
    print(f"peak memory {peak_memory_mib():.0f} MiB")
    engine.close()
    store.close()
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
