"""OS::Cinder::QoSSpecs and OS::Cinder::QoSAssociation against the simulated cloud over HTTP,
through the openstacksdk client."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, ProviderError
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import marker

SPECS = "OS::Cinder::QoSSpecs"
ASSOCIATION = "OS::Cinder::QoSAssociation"
VOLUME_TYPE = "OS::Cinder::VolumeType"


def test_qos_specs_carry_their_keys_and_marker_and_change_in_place(sim: CloudUnderTest) -> None:
    specs_marker = marker("qos")
    created = sim.provider.create(
        SPECS, {"name": "gold", "specs": {"read_iops_sec": 500, "consumer": "back-end"}}, specs_marker
    )

    updated = sim.provider.update(
        SPECS, created.physical_id, {"name": "gold", "specs": {"write_iops_sec": 100}}, frozenset({"specs"})
    )
    found = sim.provider.find_by_marker(SPECS, specs_marker)
    sdk_view = sim.provider.connection.block_storage.get(f"/qos-specs/{created.physical_id}").json()[
        "qos_specs"
    ]

    assert created.properties == {"name": "gold", "specs": {"read_iops_sec": "500"}}
    assert updated.properties["specs"] == {"write_iops_sec": "100"}
    assert found is not None and found.physical_id == created.physical_id and found.marker == specs_marker
    assert sdk_view["consumer"] == "back-end" and sdk_view["specs"]["write_iops_sec"] == "100"
    assert undocumented_requests(sim) == []


def test_an_association_follows_its_volume_types_and_is_observed_through_its_specs(
    sim: CloudUnderTest,
) -> None:
    specs = sim.provider.create(SPECS, {"name": "silver", "specs": {"total_bytes_sec": 1000}}, marker("qos"))
    fast = sim.provider.create(VOLUME_TYPE, {"name": "fast"}, marker("fast"))
    slow = sim.provider.create(VOLUME_TYPE, {"name": "slow"}, marker("slow"))

    associated = sim.provider.create(
        ASSOCIATION, {"qos_specs": "silver", "volume_types": ["fast"]}, marker("assoc")
    )
    moved = sim.provider.update(
        ASSOCIATION,
        associated.physical_id,
        {"qos_specs": "silver", "volume_types": ["slow", fast.physical_id]},
        frozenset({"volume_types"}),
    )

    assert associated.physical_id == specs.physical_id
    assert associated.properties["volume_types"] == [fast.physical_id]
    assert moved.properties["volume_types"] == sorted([fast.physical_id, slow.physical_id])
    assert (
        sim.provider.observe(ASSOCIATION, [specs.physical_id])[specs.physical_id].status is LiveStatus.READY
    )
    other = sim.provider.create(SPECS, {"name": "bronze"}, marker("other"))
    with pytest.raises(ProviderError, match="already associated with another qos specs"):
        sim.provider.create(ASSOCIATION, {"qos_specs": "bronze", "volume_types": ["fast"]}, marker("a2"))

    sim.provider.delete(ASSOCIATION, associated.physical_id)
    assert sim.provider.observe(ASSOCIATION, [specs.physical_id]) == {}
    sim.provider.delete(SPECS, specs.physical_id)
    sim.provider.delete(SPECS, other.physical_id)
    assert sim.provider.observe(SPECS, [specs.physical_id, other.physical_id]) == {}
    assert undocumented_requests(sim) == []


def test_a_taken_name_is_a_permanent_failure_naming_the_specs(sim: CloudUnderTest) -> None:
    sim.provider.create(SPECS, {"name": "taken"}, marker("one"))
    with pytest.raises(ProviderError, match="QoS specs 'taken' cannot be created"):
        sim.provider.create(SPECS, {"name": "taken"}, marker("two"))
