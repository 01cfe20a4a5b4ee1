"""One observe pass of the OpenStack provider over 10,000 servers and 10,000 ports.

    python -m bench.openstack_observe [--servers 10000] [--ports 10000]

The cloud is filled in-process (the simulated model, saved to a state file), then served by
`reconciler sim serve` in its own process; the provider observes every id of both types through
the real openstacksdk over HTTP. Printed: HTTP requests per pass (aim: one per page of 1,000, never
one per resource), wall time (aim: under 10 s) and client CPU, for the first pass (with Keystone
and version discovery) and a second one.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

from bench.openstack_served import ServedProvider, served_provider
from providers.openstack.json_api import PAGE_SIZE
from providers.openstack.marker_tags import MANAGED_TAG
from providers.simulated.cloud import SimulatedCloud

IMAGE = "cirros-0.6.2-x86_64-disk"


def filled_cloud(state: Path, servers: int, ports: int) -> tuple[list[str], list[str]]:
    """A saved cloud holding `servers` ACTIVE servers and `ports` ports, tagged as the provider tags
    what it creates; their ids."""
    cloud = SimulatedCloud.open(state)
    image = next(body["id"] for body in cloud.list("images") if body["name"] == IMAGE)
    network = cloud.create("networks", {"name": "fleet"})
    cloud.create("subnets", {"name": "fleet", "network_id": network["id"], "cidr": "10.128.0.0/9"})
    server = {"flavorRef": "1", "imageRef": image, "networks": "none", "tags": [MANAGED_TAG]}
    server_ids = [cloud.create("servers", {**server, "name": f"s{index}"})["id"] for index in range(servers)]
    port_ids = [
        cloud.create("ports", {"network_id": network["id"], "tags": [MANAGED_TAG]})["id"]
        for index in range(ports)
    ]
    cloud.save()
    return server_ids, port_ids


def observe_pass(served: ServedProvider, server_ids: list[str], port_ids: list[str], label: str) -> None:
    served.log.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    servers = served.provider.observe("OS::Nova::Server", server_ids)
    ports = served.provider.observe("OS::Neutron::Port", port_ids)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    server_pages, port_pages = served.log.count("GET", "/servers/detail"), served.log.count("GET", "/ports")
    pages = math.ceil(len(server_ids) / PAGE_SIZE) + math.ceil(len(port_ids) / PAGE_SIZE)
    print(
        f"{label}: {len(servers):,} servers + {len(ports):,} ports observed in {wall:.2f} s "
        f"(client CPU {cpu:.2f} s), {len(served.log.requests)} HTTP requests "
        f"({server_pages} server pages, {port_pages} port pages; "
        f"{pages} pages of {PAGE_SIZE})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=10_000)
    parser.add_argument("--ports", type=int, default=10_000)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="openstack-observe-") as directory:
        state = Path(directory) / "cloud.json"
        started = time.perf_counter()
        server_ids, port_ids = filled_cloud(state, arguments.servers, arguments.ports)
        print(f"filled the cloud in {time.perf_counter() - started:.1f} s")
        with served_provider(Path(directory), "--state", str(state)) as served:
            observe_pass(served, server_ids, port_ids, "first pass (with auth and discovery)")
            observe_pass(served, server_ids, port_ids, "second pass")


if __name__ == "__main__":
    main()
