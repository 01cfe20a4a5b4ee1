"""The tagged Neutron types, one table row each: create, observe, update in place, find by marker,
replace and delete, through the real openstacksdk against the simulated cloud over HTTP."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from providers.interface import LiveStatus, NotFound
from providers.openstack import OpenStackProvider
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import given_a_network, marker

Properties = Callable[[OpenStackProvider], Mapping[str, Any]]


@dataclass(frozen=True)
class Row:
    type_name: str
    properties: Properties  # made after the small network exists
    changed: Mapping[str, Any]  # an in-place update
    seen_as: Mapping[str, Any]  # how observe reports the update (Heat's property names)


def security_group_id(provider: OpenStackProvider) -> str:
    return provider.create("OS::Neutron::SecurityGroup", {"name": "web"}, marker("web_sg")).physical_id


ROWS = [
    Row("OS::Neutron::Net", lambda p: {"name": "data"}, {"name": "data-2"}, {"name": "data-2"}),
    Row(
        "OS::Neutron::Subnet",
        lambda p: {"network": "private", "cidr": "10.1.0.0/24", "name": "more"},
        {"name": "more-2", "dns_nameservers": ["8.8.8.8"]},
        {"name": "more-2", "dns_nameservers": ["8.8.8.8"]},
    ),
    Row(
        "OS::Neutron::Port",
        lambda p: {"network": "private", "fixed_ips": [{"subnet": "private-subnet"}], "name": "p"},
        {"name": "p-2", "admin_state_up": False},
        {"name": "p-2", "admin_state_up": False},
    ),
    Row(
        "OS::Neutron::Router",
        lambda p: {"name": "r", "external_gateway_info": {"network": "public"}},
        {"name": "r-2"},
        {"name": "r-2"},
    ),
    Row(
        "OS::Neutron::SecurityGroup", lambda p: {"name": "sg"}, {"description": "web"}, {"description": "web"}
    ),
    Row(
        "OS::Neutron::SecurityGroupRule",
        lambda p: {
            "security_group": security_group_id(p),
            "protocol": "tcp",
            "port_range_min": 22,
            "port_range_max": 22,
            "remote_ip_prefix": "0.0.0.0/0",
        },
        {},
        {"port_range_min": 22},
    ),
    Row(
        "OS::Neutron::FloatingIP",
        lambda p: {"floating_network": "public"},
        {"port_id": None},
        {"port_id": None},
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.type_name.rsplit("::", 1)[-1])
def test_every_neutron_type_lives_its_whole_life(sim: CloudUnderTest, row: Row) -> None:
    given_a_network(sim.provider)
    properties = dict(row.properties(sim.provider))
    first = marker("thing")

    created = sim.provider.create(row.type_name, properties, first)
    seen = sim.provider.observe(row.type_name, [created.physical_id])
    found = sim.provider.find_by_marker(row.type_name, first)

    assert seen[created.physical_id].status is LiveStatus.READY
    assert seen[created.physical_id].marker == first
    assert found is not None and found.physical_id == created.physical_id

    if row.changed:
        updated = sim.provider.update(
            row.type_name, created.physical_id, {**properties, **row.changed}, frozenset(row.changed)
        )
        assert updated.physical_id == created.physical_id
    again = sim.provider.observe(row.type_name, [created.physical_id])[created.physical_id]
    for name, value in row.seen_as.items():
        assert again.properties[name] == value

    replacement = sim.provider.create(row.type_name, _replacement_of(row, properties), marker("thing"))
    sim.provider.delete(row.type_name, created.physical_id)
    after = sim.provider.observe(row.type_name, [created.physical_id, replacement.physical_id])
    assert set(after) == {replacement.physical_id}
    with pytest.raises(NotFound):
        sim.provider.delete(row.type_name, created.physical_id)


def _replacement_of(row: Row, properties: Mapping[str, Any]) -> dict[str, Any]:
    if row.type_name == "OS::Neutron::Subnet":
        return {**properties, "cidr": "10.2.0.0/24"}
    if row.type_name == "OS::Neutron::SecurityGroupRule":
        return {**properties, "port_range_min": 443, "port_range_max": 443}
    return dict(properties)


def test_user_tags_change_in_place_and_the_marker_stays(sim: CloudUnderTest) -> None:
    data = marker("data")
    net = sim.provider.create("OS::Neutron::Net", {"name": "data", "tags": ["blue"]}, data)

    updated = sim.provider.update(
        "OS::Neutron::Net", net.physical_id, {"name": "data", "tags": ["green"]}, frozenset({"tags"})
    )

    assert updated.properties["tags"] == ["green"]
    found = sim.provider.find_by_marker("OS::Neutron::Net", data)
    assert found is not None and found.physical_id == net.physical_id


def test_a_security_group_gets_its_rules_and_keeps_them_converged(sim: CloudUnderTest) -> None:
    ssh = {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22, "remote_ip_prefix": "0.0.0.0/0"}
    https = {**ssh, "port_range_min": 443, "port_range_max": 443}
    group = sim.provider.create("OS::Neutron::SecurityGroup", {"name": "web", "rules": [ssh]}, marker("web"))

    sim.provider.update(
        "OS::Neutron::SecurityGroup",
        group.physical_id,
        {"name": "web", "rules": [https]},
        frozenset({"rules"}),
    )

    rules = sim.provider.apis.network.get("/security-group-rules", {"security_group_id": group.physical_id})[
        "security_group_rules"
    ]
    ingress = [
        (rule["port_range_min"], rule["port_range_max"]) for rule in rules if rule["direction"] == "ingress"
    ]
    assert ingress == [(443, 443)]


def test_a_router_interface_plugs_a_subnet_and_a_repeated_create_adopts_it(sim: CloudUnderTest) -> None:
    network = given_a_network(sim.provider)
    router = sim.provider.create("OS::Neutron::Router", {"name": "edge"}, marker("edge"))
    properties = {"router": router.physical_id, "subnet": network.subnet.physical_id}

    plugged = sim.provider.create("OS::Neutron::RouterInterface", properties, marker("edge_private"))
    again = sim.provider.create("OS::Neutron::RouterInterface", properties, marker("edge_private"))

    assert again.physical_id == plugged.physical_id
    seen = sim.provider.observe("OS::Neutron::RouterInterface", [plugged.physical_id])
    assert seen[plugged.physical_id].status is LiveStatus.READY
    sim.provider.delete("OS::Neutron::RouterInterface", plugged.physical_id)
    assert sim.provider.observe("OS::Neutron::RouterInterface", [plugged.physical_id]) == {}


def test_a_floating_ip_association_follows_the_port_and_drift_is_seen(sim: CloudUnderTest) -> None:
    network = given_a_network(sim.provider)
    router = sim.provider.create(
        "OS::Neutron::Router", {"external_gateway_info": {"network": "public"}}, marker("edge")
    )
    sim.provider.create(
        "OS::Neutron::RouterInterface",
        {"router": router.physical_id, "subnet": network.subnet.physical_id},
        marker("edge_if"),
    )
    port = sim.provider.create("OS::Neutron::Port", {"network": "private"}, marker("port"))
    other = sim.provider.create("OS::Neutron::Port", {"network": "private"}, marker("other"))
    floating = sim.provider.create("OS::Neutron::FloatingIP", {"floating_network": "public"}, marker("fip"))
    properties = {"floatingip_id": floating.physical_id, "port_id": port.physical_id}
    kind = "OS::Neutron::FloatingIPAssociation"

    associated = sim.provider.create(kind, properties, marker("assoc"))
    assert sim.provider.observe(kind, [associated.physical_id])[associated.physical_id].properties[
        "port_id"
    ] == (port.physical_id)
    moved = sim.provider.update(
        kind, associated.physical_id, {**properties, "port_id": other.physical_id}, frozenset({"port_id"})
    )
    assert moved.properties["port_id"] == other.physical_id

    sim.provider.delete(kind, associated.physical_id)
    assert sim.provider.observe(kind, [associated.physical_id]) == {}
    with pytest.raises(NotFound):
        sim.provider.delete(kind, associated.physical_id)


def test_an_unknown_network_name_is_permanent_and_names_it(sim: CloudUnderTest) -> None:
    from providers.interface import Permanent

    with pytest.raises(Permanent, match="no network named 'nowhere'"):
        sim.provider.create("OS::Neutron::Port", {"network": "nowhere"}, marker("port"))
