"""Building blocks the OpenStack provider's scenarios share: markers and the usual small network."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from providers.interface import LiveResource, Marker
from providers.openstack import OpenStackProvider

IMAGE = "cirros-0.6.2-x86_64-disk"
FLAVOR = "m1.tiny"
_records = itertools.count(1)


def marker(resource: str, stack: str = "app") -> Marker:
    return Marker(
        stack=stack, resource=resource, record_id=f"{next(_records):08d}-0000-4000-8000-000000000000"
    )


@dataclass(frozen=True)
class SmallNetwork:
    net: LiveResource
    subnet: LiveResource


def given_a_network(provider: OpenStackProvider, name: str = "private") -> SmallNetwork:
    net = provider.create("OS::Neutron::Net", {"name": name}, marker(f"{name}_net"))
    subnet = provider.create(
        "OS::Neutron::Subnet",
        {"network": name, "cidr": "10.0.0.0/24", "name": f"{name}-subnet"},
        marker(f"{name}_subnet"),
    )
    return SmallNetwork(net, subnet)
