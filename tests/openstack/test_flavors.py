"""OS::Nova::Flavor against the simulated cloud over HTTP, through the openstacksdk client."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, ProviderError
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import IMAGE, given_a_network, marker

FLAVOR = "OS::Nova::Flavor"


def test_a_flavor_carries_its_extra_specs_and_marker_and_a_server_can_use_it(sim: CloudUnderTest) -> None:
    flavor_marker = marker("flavor")
    created = sim.provider.create(
        FLAVOR,
        {
            "name": "m1.custom",
            "ram": 1024,
            "vcpus": 2,
            "disk": 10,
            "extra_specs": {"hw:cpu_policy": "dedicated"},
        },
        flavor_marker,
    )
    given_a_network(sim.provider)
    server = sim.provider.create(
        "OS::Nova::Server",
        {"flavor": "m1.custom", "image": IMAGE, "networks": [{"network": "private"}]},
        marker("vm"),
    )

    seen = sim.provider.observe(FLAVOR, [created.physical_id])[created.physical_id]
    found = sim.provider.find_by_marker(FLAVOR, flavor_marker)
    sdk_view = sim.provider.connection.compute.get_flavor(created.physical_id)

    assert seen.status is LiveStatus.READY and seen.marker == flavor_marker
    assert seen.properties["extra_specs"] == {"hw:cpu_policy": "dedicated"}
    assert seen.properties["ram"] == 1024 and seen.properties["vcpus"] == 2
    assert found is not None and found.physical_id == created.physical_id
    assert sdk_view.name == "m1.custom" and sdk_view.vcpus == 2
    assert sim.cloud.get("servers", server.physical_id)["flavor"]["original_name"] == "m1.custom"
    assert undocumented_requests(sim) == []


def test_extra_specs_and_tenants_change_in_place_on_a_private_flavor(sim: CloudUnderTest) -> None:
    properties = {
        "ram": 512,
        "vcpus": 1,
        "is_public": False,
        "tenants": ["p1"],
        "extra_specs": {"a": "1", "b": "2"},
    }
    created = sim.provider.create(FLAVOR, properties, marker("flavor"))

    updated = sim.provider.update(
        FLAVOR,
        created.physical_id,
        {**properties, "tenants": ["p2"], "extra_specs": {"a": "10"}},
        frozenset({"tenants", "extra_specs"}),
    )

    assert updated.physical_id == created.physical_id
    assert updated.properties["extra_specs"] == {"a": "10"}
    assert updated.properties["tenants"] == ["p2"]
    assert created.properties["name"]  # Heat's physical name when the template gives none
    assert undocumented_requests(sim) == []


def test_nova_refuses_a_taken_name_and_access_to_a_public_flavor_with_its_reason(sim: CloudUnderTest) -> None:
    sim.provider.create(FLAVOR, {"name": "taken", "ram": 512, "vcpus": 1}, marker("one"))

    with pytest.raises(ProviderError, match="Flavor with name taken already exists"):
        sim.provider.create(FLAVOR, {"name": "taken", "ram": 512, "vcpus": 1}, marker("two"))
    with pytest.raises(ProviderError, match="tenants need is_public false"):
        sim.provider.create(
            FLAVOR, {"name": "open", "ram": 512, "vcpus": 1, "tenants": ["p1"]}, marker("three")
        )
    assert sim.cloud.list("flavors", name="open") == []
