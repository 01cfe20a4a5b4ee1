"""1,000 servers from nothing to ACTIVE through the OpenStack provider, at 50 ms per API call.

    python -m bench.openstack_boot [--servers 1000] [--threads 50] [--latency 0.05] [--build 5]

`reconciler sim serve --latency 0.05 --time-to-active 5` runs in its own process. The provider
creates the servers from a pool of threads (as the engine's executor does), then observe passes,
one per second, watch them all reach ACTIVE. Printed: wall time, the HTTP requests per server
(aim: at most 2, plus the shared list pages) and where every request went.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.openstack_served import ServedProvider, served_provider
from providers.interface import LiveStatus, Marker

IMAGE = "cirros-0.6.2-x86_64-disk"
OBSERVE_EVERY = 1.0


def boot(served: ServedProvider, servers: int, threads: int) -> None:
    provider = served.provider
    provider.create("OS::Neutron::Net", {"name": "fleet"}, Marker("bench", "fleet", "net"))
    provider.create(
        "OS::Neutron::Subnet", {"network": "fleet", "cidr": "10.64.0.0/16"}, Marker("bench", "sub", "1")
    )
    served.log.clear()
    properties = {"flavor": "m1.tiny", "image": IMAGE, "networks": [{"network": "fleet"}]}
    started, cpu = time.perf_counter(), time.process_time()

    def create(index: int) -> str:
        return provider.create(
            "OS::Nova::Server", properties, Marker("bench", f"node{index}", f"{index:08d}")
        ).physical_id

    with ThreadPoolExecutor(max_workers=threads) as pool:
        ids = list(pool.map(create, range(servers)))
    created = time.perf_counter() - started
    passes = 0
    while True:
        passes += 1
        seen = provider.observe("OS::Nova::Server", ids)
        if len(seen) == len(ids) and all(live.status is LiveStatus.READY for live in seen.values()):
            break
        time.sleep(OBSERVE_EVERY)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"{servers} servers ACTIVE in {wall:.1f} s (creates {created:.1f} s; client CPU {cpu:.1f} s)")
    report(served, servers, passes)


def report(served: ServedProvider, servers: int, passes: int) -> None:
    kinds = Counter(f"{sent.method} {shape(sent.path)}" for sent in served.log.requests)
    list_pages = served.log.count("GET", "/servers/detail")
    per_server = (len(served.log.requests) - list_pages) / servers
    total = len(served.log.requests)
    print(f"{total} HTTP requests: {per_server:.2f} per server, plus {list_pages} shared list pages")
    print(f"({passes} observe passes)")
    for kind, count in kinds.most_common():
        print(f"  {count:6d}  {kind}")


def shape(path: str) -> str:
    """A request path with ids folded, to group requests by kind."""
    return "/".join("{id}" if len(part) >= 32 else part for part in path.split("/"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=50)
    parser.add_argument("--latency", default="0.05")
    parser.add_argument("--build", default="5", help="seconds each server spends in BUILD")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="openstack-boot-") as directory:
        options = ("--latency", arguments.latency, "--time-to-active", arguments.build)
        with served_provider(Path(directory), *options) as served:
            boot(served, arguments.servers, arguments.threads)


if __name__ == "__main__":
    main()
