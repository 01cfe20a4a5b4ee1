"""OS::Nova::Quota, OS::Neutron::Quota and OS::Cinder::Quota against the simulated cloud over HTTP,
through the openstacksdk client."""

from __future__ import annotations

import pytest

from providers.interface import ProviderError
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import marker

QUOTAS = {
    "OS::Nova::Quota": {"cores": 40, "ram": 102400, "floating_ips": 5},
    "OS::Neutron::Quota": {"network": 20, "port": -1},
    "OS::Cinder::Quota": {"volumes": 30, "gigabytes": 500},
}


@pytest.mark.parametrize("type_name", sorted(QUOTAS))
def test_a_projects_limits_are_set_changed_and_reverted_by_name_or_id(
    sim: CloudUnderTest, type_name: str
) -> None:
    project = sim.provider.create("OS::Keystone::Project", {"name": "tenant-a"}, marker("project"))
    limits = QUOTAS[type_name]

    created = sim.provider.create(type_name, {"project": "tenant-a", **limits}, marker("quota"))
    changed_name = next(iter(limits))
    updated = sim.provider.update(
        type_name,
        created.physical_id,
        {"project": "tenant-a", **limits, changed_name: 3},
        frozenset({changed_name}),
    )
    seen = sim.provider.observe(type_name, [project.physical_id])[project.physical_id]
    sim.provider.delete(type_name, project.physical_id)
    reverted = sim.provider.observe(type_name, [project.physical_id])[project.physical_id]

    assert created.physical_id == project.physical_id
    assert all(created.properties[name] == value for name, value in limits.items())
    assert updated.properties[changed_name] == 3 and seen.properties[changed_name] == 3
    assert reverted.properties[changed_name] != 3
    assert undocumented_requests(sim) == []


def test_the_sdk_reads_the_limits_and_a_bad_value_is_refused_with_its_reason(sim: CloudUnderTest) -> None:
    project = sim.provider.create("OS::Keystone::Project", {"name": "tenant-b"}, marker("project"))
    sim.provider.create("OS::Neutron::Quota", {"project": project.physical_id, "router": 4}, marker("quota"))

    sdk_view = sim.provider.connection.network.get_quota(project.physical_id)

    assert sdk_view.routers == 4
    with pytest.raises(ProviderError, match="Invalid input for volumes"):
        sim.provider.create(
            "OS::Cinder::Quota", {"project": project.physical_id, "volumes": -5}, marker("bad")
        )
