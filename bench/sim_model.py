"""In-process speed of the simulated cloud: provider creates, one batched observe pass, raw model calls.

    python -m bench.sim_model [--resources 50000]

Zero latency, no faults: what the cloud itself costs the engine benchmark per call. Resources are
a third ports, a third servers on those ports, a third volumes, as the engine's 50,000 stack has.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Callable

from providers.interface import Marker
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider

IMAGE = "cirros-0.6.2-x86_64-disk"


def timed(label: str, count: int, work: Callable[[], object]) -> float:
    """Run `work`, print wall and CPU time (CPU is what a loaded machine does not inflate)."""
    started, cpu = time.perf_counter(), time.process_time()
    work()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    rate, each = count / elapsed, cpu / count * 1e6
    timing = f"{elapsed:6.2f} s wall, {cpu:6.2f} s CPU"
    print(f"{label:<42} {count:>6}: {timing} = {rate:>8,.0f} /s ({each:5.1f} µs CPU each)")
    return elapsed


def find_repeatedly(provider: SimulatedProvider, marker: Marker, times: int) -> None:
    for _ in range(times):
        provider.find_by_marker("OS::Nova::Server", marker)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=50_000)
    arguments = parser.parse_args()
    per_type = arguments.resources // 3
    provider = SimulatedProvider(SimulatedCloud())
    network = provider.create("OS::Neutron::Net", {"name": "bench"}, Marker("bench", "net", "1")).physical_id
    provider.create(
        "OS::Neutron::Subnet", {"network": network, "cidr": "10.0.0.0/8"}, Marker("bench", "subnet", "1")
    )
    ids: dict[str, list[str]] = {"OS::Neutron::Port": [], "OS::Nova::Server": [], "OS::Cinder::Volume": []}

    def create_all() -> None:
        for index in range(per_type):
            port = provider.create(
                "OS::Neutron::Port", {"network": network}, Marker("bench", f"p{index}", "r")
            )
            server = provider.create(
                "OS::Nova::Server",
                {"flavor": "m1.tiny", "image": IMAGE, "networks": [{"port": port.physical_id}]},
                Marker("bench", f"s{index}", "r"),
            )
            volume = provider.create("OS::Cinder::Volume", {"size": 1}, Marker("bench", f"v{index}", "r"))
            ids["OS::Neutron::Port"].append(port.physical_id)
            ids["OS::Nova::Server"].append(server.physical_id)
            ids["OS::Cinder::Volume"].append(volume.physical_id)

    total = per_type * 3
    timed("provider create (ports, servers, volumes)", total, create_all)
    timed(
        "provider observe, one pass over all", total, lambda: [provider.observe(t, i) for t, i in ids.items()]
    )
    marker = Marker("bench", f"s{per_type // 2}", "r")
    timed("provider find_by_marker (tag index)", 1000, lambda: find_repeatedly(provider, marker, 1000))
    cloud = provider.cloud
    servers = ids["OS::Nova::Server"]
    timed("model get", len(servers), lambda: [cloud.get("servers", server) for server in servers])
    timed(
        "model create network",
        10_000,
        lambda: [cloud.create("networks", {"tags": ["t"]}) for _ in range(10_000)],
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
