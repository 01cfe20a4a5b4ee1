"""OS::Nova::HostAggregate against the simulated cloud over HTTP, through the openstacksdk client."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, Permanent, ProviderError
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import marker

AGGREGATE = "OS::Nova::HostAggregate"


def test_an_aggregate_holds_hosts_zone_and_metadata_and_is_found_by_its_marker(sim: CloudUnderTest) -> None:
    rack = marker("rack")
    created = sim.provider.create(
        AGGREGATE,
        {
            "name": "rack-1",
            "availability_zone": "az-1",
            "hosts": ["compute-1", "compute-2"],
            "metadata": {"ssd": "true"},
        },
        rack,
    )

    seen = sim.provider.observe(AGGREGATE, [created.physical_id])[created.physical_id]
    found = sim.provider.find_by_marker(AGGREGATE, rack)
    sdk_view = sim.provider.connection.compute.get_aggregate(created.physical_id)

    assert seen.status is LiveStatus.READY and seen.marker == rack
    assert seen.properties == {
        "name": "rack-1",
        "availability_zone": "az-1",
        "hosts": ["compute-1", "compute-2"],
        "metadata": {"ssd": "true"},
    }
    assert found is not None and found.physical_id == created.physical_id
    assert sdk_view.hosts == ["compute-1", "compute-2"] and sdk_view.availability_zone == "az-1"


def test_hosts_metadata_and_zone_change_in_place_and_delete_empties_it_first(sim: CloudUnderTest) -> None:
    created = sim.provider.create(
        AGGREGATE,
        {"name": "rack-2", "hosts": ["compute-1"], "metadata": {"a": "1", "b": "2"}},
        marker("rack"),
    )

    sim.provider.update(
        AGGREGATE,
        created.physical_id,
        {"name": "rack-2b", "availability_zone": "az-2", "hosts": ["compute-3"], "metadata": {"a": "9"}},
        frozenset({"name", "availability_zone", "hosts", "metadata"}),
    )
    seen = sim.provider.observe(AGGREGATE, [created.physical_id])[created.physical_id]
    sim.provider.delete(AGGREGATE, created.physical_id)

    assert seen.properties == {
        "name": "rack-2b",
        "availability_zone": "az-2",
        "hosts": ["compute-3"],
        "metadata": {"a": "9"},
    }
    assert sim.provider.observe(AGGREGATE, [created.physical_id]) == {}
    assert undocumented_requests(sim) == []


def test_an_unknown_host_or_a_taken_name_fails_with_novas_reason(sim: CloudUnderTest) -> None:
    sim.provider.create(AGGREGATE, {"name": "taken"}, marker("first"))

    with pytest.raises(Permanent, match="Aggregate taken already exists"):
        sim.provider.create(AGGREGATE, {"name": "taken"}, marker("second"))
    with pytest.raises(ProviderError, match="Compute host nowhere could not be found"):
        sim.provider.create(AGGREGATE, {"name": "lost", "hosts": ["nowhere"]}, marker("third"))
