"""OS::Neutron::AddressScope, SubnetPool (and a subnet allocated from a pool) and ProviderNet
against the simulated cloud over HTTP, through the openstacksdk client."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, ProviderError
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import marker

SCOPE = "OS::Neutron::AddressScope"
POOL = "OS::Neutron::SubnetPool"
PROVIDER_NET = "OS::Neutron::ProviderNet"


def test_a_subnet_is_allocated_from_a_pool_in_a_scope_and_each_is_found_by_its_marker(
    sim: CloudUnderTest,
) -> None:
    scope_marker, pool_marker = marker("scope"), marker("pool")
    scope = sim.provider.create(SCOPE, {"ip_version": 4}, scope_marker)
    pool = sim.provider.create(
        POOL,
        {
            "name": "pool",
            "prefixes": ["10.100.0.0/16"],
            "address_scope": scope.physical_id,
            "default_prefixlen": 24,
        },
        pool_marker,
    )
    sim.provider.create("OS::Neutron::Net", {"name": "n"}, marker("net"))
    first = sim.provider.create("OS::Neutron::Subnet", {"network": "n", "subnetpool": "pool"}, marker("s1"))
    second = sim.provider.create(
        "OS::Neutron::Subnet", {"network": "n", "subnetpool": "pool", "prefixlen": 26}, marker("s2")
    )

    found_scope = sim.provider.find_by_marker(SCOPE, scope_marker)
    found_pool = sim.provider.find_by_marker(POOL, pool_marker)
    sdk_pool = sim.provider.connection.network.get_subnet_pool(pool.physical_id)

    assert found_scope is not None and found_scope.physical_id == scope.physical_id
    assert found_scope.marker == scope_marker and found_scope.properties["name"] is None
    assert found_pool is not None and found_pool.physical_id == pool.physical_id
    assert sdk_pool.address_scope_id == scope.physical_id and sdk_pool.prefixes == ["10.100.0.0/16"]
    assert first.attributes["cidr"] == "10.100.0.0/24"
    assert second.attributes["cidr"] == "10.100.1.0/26"
    with pytest.raises(ProviderError, match="subnets allocated from it"):
        sim.provider.delete(POOL, pool.physical_id)
    with pytest.raises(ProviderError, match="subnet pools in use on the address scope"):
        sim.provider.delete(SCOPE, scope.physical_id)
    assert undocumented_requests(sim) == []


def test_a_pool_grows_in_place_and_refuses_to_shrink_or_join_a_scope_of_the_other_version(
    sim: CloudUnderTest,
) -> None:
    sim.provider.create(SCOPE, {"name": "v6", "ip_version": 6}, marker("scope"))
    pool = sim.provider.create(POOL, {"prefixes": ["10.1.0.0/24"]}, marker("pool"))

    grown = sim.provider.update(
        POOL, pool.physical_id, {"prefixes": ["10.1.0.0/24", "10.2.0.0/24"]}, frozenset({"prefixes"})
    )

    assert grown.properties["prefixes"] == ["10.1.0.0/24", "10.2.0.0/24"]
    with pytest.raises(ProviderError, match="can only grow"):
        sim.provider.update(POOL, pool.physical_id, {"prefixes": ["10.2.0.0/24"]}, frozenset({"prefixes"}))
    with pytest.raises(ProviderError, match="Illegal subnetpool association"):
        sim.provider.update(POOL, pool.physical_id, {"address_scope": "v6"}, frozenset({"address_scope"}))
    assert undocumented_requests(sim) == []


def test_a_provider_network_keeps_its_segment_and_neutron_checks_it(sim: CloudUnderTest) -> None:
    net_marker = marker("provider")
    created = sim.provider.create(
        PROVIDER_NET,
        {"network_type": "vlan", "physical_network": "physnet1", "segmentation_id": "101", "shared": True},
        net_marker,
    )

    seen = sim.provider.observe(PROVIDER_NET, [created.physical_id])[created.physical_id]
    sdk_view = sim.provider.connection.network.get_network(created.physical_id)

    assert seen.status is LiveStatus.READY and seen.marker == net_marker
    assert seen.properties["network_type"] == "vlan" and seen.properties["segmentation_id"] == 101
    assert sdk_view.provider_physical_network == "physnet1" and sdk_view.is_shared
    with pytest.raises(ProviderError, match="physical_network required for flat"):
        sim.provider.create(PROVIDER_NET, {"network_type": "flat"}, marker("flat"))
    with pytest.raises(ProviderError, match="segmentation_id out of range for vlan"):
        sim.provider.create(
            PROVIDER_NET,
            {"network_type": "vlan", "physical_network": "physnet1", "segmentation_id": "5000"},
            marker("bad"),
        )
    sim.provider.delete(PROVIDER_NET, created.physical_id)
    assert sim.provider.observe(PROVIDER_NET, [created.physical_id]) == {}
    assert undocumented_requests(sim) == []
