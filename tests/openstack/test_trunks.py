"""OS::Neutron::Trunk against the simulated cloud over HTTP, through the openstacksdk client."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, ProviderError
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import given_a_network, marker

TRUNK = "OS::Neutron::Trunk"
PORT = "OS::Neutron::Port"


def ports(sim: CloudUnderTest, *names: str) -> list[str]:
    given_a_network(sim.provider)
    return [
        sim.provider.create(PORT, {"network": "private", "name": name}, marker(name)).physical_id
        for name in names
    ]


def test_a_trunk_carries_its_sub_ports_and_marker_and_the_sdk_sees_them(sim: CloudUnderTest) -> None:
    parent, first = ports(sim, "parent", "first")
    trunk = marker("trunk")
    created = sim.provider.create(
        TRUNK,
        {
            "port": "parent",
            "sub_ports": [{"port": "first", "segmentation_type": "vlan", "segmentation_id": 101}],
        },
        trunk,
    )

    seen = sim.provider.observe(TRUNK, [created.physical_id])[created.physical_id]
    found = sim.provider.find_by_marker(TRUNK, trunk)
    sdk_view = sim.provider.connection.network.get_trunk(created.physical_id)

    assert seen.status is LiveStatus.READY and seen.marker == trunk
    assert seen.properties["port"] == parent
    assert seen.properties["sub_ports"] == [
        {"port": first, "segmentation_type": "vlan", "segmentation_id": 101}
    ]
    assert found is not None and found.physical_id == created.physical_id
    assert sdk_view.port_id == parent and [sub["port_id"] for sub in sdk_view.sub_ports] == [first]


def test_sub_ports_are_added_removed_and_re_segmented_in_place(sim: CloudUnderTest) -> None:
    parent, first, second = ports(sim, "parent", "first", "second")
    created = sim.provider.create(
        TRUNK, {"port": parent, "sub_ports": [{"port": first, "segmentation_id": 101}]}, marker("trunk")
    )

    sim.provider.update(
        TRUNK,
        created.physical_id,
        {
            "port": parent,
            "name": "uplink",
            "sub_ports": [
                {"port": first, "segmentation_type": "vlan", "segmentation_id": 201},
                {"port": second, "segmentation_type": "vlan", "segmentation_id": 102},
            ],
        },
        frozenset({"sub_ports", "name"}),
    )

    seen = sim.provider.observe(TRUNK, [created.physical_id])[created.physical_id]
    assert seen.physical_id == created.physical_id and seen.properties["name"] == "uplink"
    assert sorted(seen.properties["sub_ports"], key=lambda entry: entry["segmentation_id"]) == [
        {"port": second, "segmentation_type": "vlan", "segmentation_id": 102},
        {"port": first, "segmentation_type": "vlan", "segmentation_id": 201},
    ]


def test_neutron_refuses_what_a_trunk_holds_and_the_reason_is_named(sim: CloudUnderTest) -> None:
    parent, first = ports(sim, "parent", "first")
    created = sim.provider.create(
        TRUNK, {"port": parent, "sub_ports": [{"port": first, "segmentation_id": 7}]}, marker("t")
    )

    with pytest.raises(ProviderError, match="is not eligible for use as a parent port"):
        sim.provider.create(TRUNK, {"port": parent}, marker("again"))
    with pytest.raises(ProviderError, match="currently a parent port for trunk"):
        sim.provider.delete(PORT, parent)
    with pytest.raises(ProviderError, match=r"segmentation_id.*not in \[1, 4094\]"):
        sim.provider.update(
            TRUNK,
            created.physical_id,
            {"port": parent, "sub_ports": [{"port": first, "segmentation_id": 5000}]},
            frozenset({"sub_ports"}),
        )

    sim.provider.delete(TRUNK, created.physical_id)
    sim.provider.delete(PORT, parent)
    assert sim.provider.observe(TRUNK, [created.physical_id]) == {}
    assert undocumented_requests(sim) == []
