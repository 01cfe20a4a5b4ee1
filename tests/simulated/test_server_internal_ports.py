"""SimulatedProvider: a server `networks` entry naming only a subnet gets a port of its own, as
Heat's server makes one, deleted with the server or when the entry changes."""

from __future__ import annotations

import random

from providers.interface import Marker
from providers.internal_ports import INTERNAL_PORT_TAG
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings
from timekeeping.testing import SteppedClock

IMAGE = "cirros-0.6.2-x86_64-disk"


def marker(resource: str) -> Marker:
    return Marker(stack="app", resource=resource, record_id=f"rec-{resource}")


def test_a_subnet_entry_is_served_by_an_internal_port_that_follows_the_entry() -> None:
    clock = SteppedClock()
    cloud = SimulatedCloud(
        CloudSettings(), clock=clock.now, sleep=clock.sleep, random_source=random.Random(3)
    )
    provider = SimulatedProvider(cloud)
    provider.create("OS::Neutron::Net", {"name": "a"}, marker("a"))
    first = provider.create("OS::Neutron::Subnet", {"network": "a", "cidr": "10.1.0.0/24"}, marker("s1"))
    second = provider.create("OS::Neutron::Subnet", {"network": "a", "cidr": "10.2.0.0/24"}, marker("s2"))
    properties = {"flavor": "m1.tiny", "image": IMAGE, "networks": [{"subnet": first.physical_id}]}

    server = provider.create("OS::Nova::Server", properties, marker("web"))
    [made] = cloud.list("ports", tags=[INTERNAL_PORT_TAG])
    provider.update(
        "OS::Nova::Server",
        server.physical_id,
        {**properties, "networks": [{"subnet": second.physical_id, "fixed_ip": "10.2.0.9"}]},
        frozenset({"networks"}),
    )
    [replacement] = cloud.list("ports", tags=[INTERNAL_PORT_TAG])
    provider.delete("OS::Nova::Server", server.physical_id)

    assert made["device_id"] == server.physical_id and made["name"] == "web-port-0"
    assert [fixed["subnet_id"] for fixed in made["fixed_ips"]] == [first.physical_id]
    assert replacement["id"] != made["id"]
    assert replacement["fixed_ips"] == [{"subnet_id": second.physical_id, "ip_address": "10.2.0.9"}]
    assert replacement["device_id"] == server.physical_id
    assert cloud.list("ports", tags=[INTERNAL_PORT_TAG]) == []
