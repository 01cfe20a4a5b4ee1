"""The simulated cloud holds clients to the services' limits on names, tags and metadata, and the
in-process provider finds every marker it wrote again, whatever the stack and resource are called."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings
from tests.marker_names import NAMES, named_marker
from timekeeping.testing import SteppedClock

IMAGE = "cirros-0.6.2-x86_64-disk"


def a_cloud() -> SimulatedCloud:
    clock = SteppedClock()
    return SimulatedCloud(CloudSettings(), clock=clock.now, sleep=clock.sleep, random_source=random.Random(5))


@pytest.mark.parametrize(
    ("collection", "request_body"),
    [
        ("servers", {"name": "s", "flavorRef": "m1.small", "tags": ["t" * 61]}),
        ("servers", {"name": "s", "flavorRef": "m1.small", "tags": ["c1/nodes/17"]}),
        ("servers", {"name": "s", "flavorRef": "m1.small", "metadata": {"k": "v" * 256}}),
        ("networks", {"name": "n", "tags": ["t" * 256]}),
        ("networks", {"name": "n" * 256}),
        ("volumes", {"size": 1, "metadata": {"k": "v" * 256}}),
        ("server_groups", {"name": "g" * 256, "policies": ["affinity"]}),
    ],
)
def test_what_a_real_service_would_refuse_is_refused(
    collection: str, request_body: Mapping[str, Any]
) -> None:
    with pytest.raises(BadRequest):
        a_cloud().create(collection, request_body)


def test_a_neutron_tag_may_hold_a_slash() -> None:
    created = a_cloud().create("networks", {"name": "n", "tags": ["reconciler:c1/nodes/17:port:r1"]})

    assert created["tags"] == ["reconciler:c1/nodes/17:port:r1"]


def given_a_network(provider: SimulatedProvider) -> str:
    net = provider.create("OS::Neutron::Net", {"name": "private"}, named_marker("plain")).physical_id
    provider.create("OS::Neutron::Subnet", {"network": net, "cidr": "10.1.0.0/24"}, named_marker("plain"))
    return net


TYPES: Mapping[str, Mapping[str, Any]] = {
    "OS::Neutron::Net": {"name": "data"},
    "OS::Neutron::Port": {"network": "private"},
    "OS::Neutron::Router": {},
    "OS::Neutron::SecurityGroup": {},
    "OS::Neutron::FloatingIP": {"floating_network": "public"},
    "OS::Nova::Server": {"flavor": "m1.small", "image": IMAGE, "networks": [{"network": "private"}]},
    "OS::Nova::ServerGroup": {"policies": ["anti-affinity"]},
    "OS::Cinder::Volume": {"size": 1},
}


@pytest.mark.parametrize("case", sorted(NAMES))
@pytest.mark.parametrize("type_name", sorted(TYPES), ids=lambda name: name.rsplit("::", 1)[-1])
def test_what_a_create_marked_is_found_by_its_marker(type_name: str, case: str) -> None:
    provider = SimulatedProvider(a_cloud())
    given_a_network(provider)
    mine = named_marker(case)

    created = provider.create(type_name, TYPES[type_name], mine)
    found = provider.find_by_marker(type_name, mine)

    assert found is not None and found.physical_id == created.physical_id
    assert found.marker == mine
    assert provider.find_by_marker(type_name, named_marker(case)) is None
