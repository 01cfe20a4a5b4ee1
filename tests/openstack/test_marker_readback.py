"""Every marker a create writes is found again by `find_by_marker`, whatever the stack and resource
are called: nested stacks (a "/" in every name), names past the services' 255 and Nova's 60
characters, names holding ":" or ",". A marker that cannot be found again makes a lost answer or a
crash repeat the create: a duplicate in the cloud.

Through the real openstacksdk against the simulated cloud over HTTP, which refuses what the real
services refuse (Nova's tags and metadata, Neutron's tags and descriptions)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from providers.interface import Marker
from providers.openstack import OpenStackProvider
from tests.marker_names import NAMES, named_marker
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import FLAVOR, IMAGE, given_a_network, marker

Properties = Callable[[OpenStackProvider], Mapping[str, Any]]


def a_rule(provider: OpenStackProvider) -> Mapping[str, Any]:
    group = provider.create("OS::Neutron::SecurityGroup", {"name": "web"}, marker("web_sg")).physical_id
    return {"security_group": group, "protocol": "tcp", "port_range_min": 22, "port_range_max": 22}


TYPES: Mapping[str, Properties] = {
    "OS::Neutron::Net": lambda p: {"name": "data"},
    "OS::Neutron::Port": lambda p: {"network": "private"},
    "OS::Neutron::Router": lambda p: {},
    "OS::Neutron::SecurityGroup": lambda p: {},
    "OS::Neutron::SecurityGroupRule": a_rule,
    "OS::Neutron::FloatingIP": lambda p: {"floating_network": "public"},
    "OS::Nova::Server": lambda p: {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]},
    "OS::Nova::ServerGroup": lambda p: {"policies": ["anti-affinity"]},
    "OS::Cinder::Volume": lambda p: {"size": 1},
}


@pytest.mark.parametrize("case", sorted(NAMES))
@pytest.mark.parametrize("type_name", sorted(TYPES), ids=lambda name: name.rsplit("::", 1)[-1])
def test_what_a_create_marked_is_found_by_its_marker(sim: CloudUnderTest, type_name: str, case: str) -> None:
    given_a_network(sim.provider)
    properties = TYPES[type_name](sim.provider)
    mine = named_marker(case)

    created = sim.provider.create(type_name, properties, mine)
    found = sim.provider.find_by_marker(type_name, mine)

    assert found is not None and found.physical_id == created.physical_id
    assert found.marker == mine


@pytest.mark.parametrize("type_name", ["OS::Neutron::Port", "OS::Nova::Server", "OS::Cinder::Volume"])
def test_a_sibling_of_the_same_stack_and_resource_is_not_taken_for_it(
    sim: CloudUnderTest, type_name: str
) -> None:
    given_a_network(sim.provider)
    first, second = named_marker("long"), named_marker("long")
    sim.provider.create(type_name, TYPES[type_name](sim.provider), first)

    assert sim.provider.find_by_marker(type_name, second) is None


def test_a_nested_stacks_port_made_before_its_tag_was_kept_in_clear_is_still_found(
    sim: CloudUnderTest,
) -> None:
    given_a_network(sim.provider)
    nested = named_marker("nested")
    earlier_digest = "reconciler#" + hashlib.sha256(nested.tag.encode()).hexdigest()[:40]
    port = sim.provider.apis.network.post(
        "/ports",
        {
            "port": {
                "network_id": sim.provider.apis.names.id_of("network", "private"),
                "tags": [earlier_digest],
            }
        },
    )["port"]

    found = sim.provider.find_by_marker("OS::Neutron::Port", nested)

    assert found is not None and found.physical_id == port["id"]


def test_user_tags_and_metadata_are_shown_without_the_markers_digests(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    long: Marker = named_marker("long")
    port = sim.provider.create("OS::Neutron::Port", {"network": "private", "tags": ["blue"]}, long)
    server = sim.provider.create(
        "OS::Nova::Server", {**TYPES["OS::Nova::Server"](sim.provider), "metadata": {"role": "db"}}, long
    )

    seen_port = sim.provider.observe("OS::Neutron::Port", [port.physical_id])[port.physical_id]
    seen_server = sim.provider.observe("OS::Nova::Server", [server.physical_id])[server.physical_id]

    assert seen_port.properties["tags"] == ["blue"]
    assert seen_server.properties["tags"] == [] and seen_server.properties["metadata"] == {"role": "db"}
