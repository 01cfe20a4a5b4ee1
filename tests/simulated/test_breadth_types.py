"""SimulatedProvider: the QoS, subnet pool, address scope, provider network, flavor, Cinder QoS and
quota types live their lives in process (create, observe, change in place, delete), each found
again by its marker where it carries one."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from providers.interface import LiveStatus, Marker
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings
from timekeeping.testing import SteppedClock


def marker(resource: str) -> Marker:
    return Marker(stack="app", resource=resource, record_id=f"rec-{resource}")


@dataclass(frozen=True)
class Life:
    type_name: str
    properties: dict[str, Any]
    change: dict[str, Any]
    marked: bool = True  # found again by its marker
    given: Callable[[SimulatedProvider], None] = field(default=lambda provider: None)
    # What observation shows of the change, when not the change itself (ids for names).
    observed: Callable[[SimulatedCloud], dict[str, Any]] | None = None


def a_policy(provider: SimulatedProvider) -> None:
    provider.create("OS::Neutron::QoSPolicy", {"name": "gold"}, marker("policy"))


def a_volume_type_and_specs(provider: SimulatedProvider) -> None:
    provider.create("OS::Cinder::VolumeType", {"name": "fast"}, marker("fast"))
    provider.create("OS::Cinder::VolumeType", {"name": "slow"}, marker("slow"))
    provider.create("OS::Cinder::QoSSpecs", {"name": "silver"}, marker("silver"))


def a_project(provider: SimulatedProvider) -> None:
    provider.create("OS::Keystone::Project", {"name": "tenant"}, marker("tenant"))


LIVES = [
    Life("OS::Neutron::QoSPolicy", {"name": "p", "shared": False}, {"description": "gold"}),
    Life(
        "OS::Neutron::QoSBandwidthLimitRule",
        {"policy": "gold", "max_kbps": 10},
        {"max_kbps": 20},
        False,
        a_policy,
    ),
    Life(
        "OS::Neutron::QoSDscpMarkingRule",
        {"policy": "gold", "dscp_mark": 8},
        {"dscp_mark": 16},
        False,
        a_policy,
    ),
    Life(
        "OS::Neutron::QoSMinimumBandwidthRule",
        {"policy": "gold", "min_kbps": 5},
        {"min_kbps": 6},
        False,
        a_policy,
    ),
    Life(
        "OS::Neutron::SubnetPool", {"prefixes": ["10.8.0.0/16"]}, {"prefixes": ["10.8.0.0/16", "10.9.0.0/16"]}
    ),
    Life("OS::Neutron::AddressScope", {"ip_version": 4}, {"shared": True}),
    Life(
        "OS::Neutron::ProviderNet", {"network_type": "flat", "physical_network": "physnet1"}, {"name": "ext"}
    ),
    Life("OS::Nova::Flavor", {"ram": 256, "vcpus": 1}, {"extra_specs": {"hw:mem_page_size": "large"}}),
    Life(
        "OS::Cinder::QoSSpecs",
        {"name": "q", "specs": {"read_iops_sec": "1"}},
        {"specs": {"read_iops_sec": "2"}},
    ),
    Life(
        "OS::Cinder::QoSAssociation",
        {"qos_specs": "silver", "volume_types": ["fast"]},
        {"volume_types": ["slow"]},
        False,
        a_volume_type_and_specs,
        lambda cloud: {"volume_types": [cloud.list("volume_types", name="slow")[0]["id"]]},
    ),
    Life("OS::Nova::Quota", {"project": "tenant", "cores": 8}, {"cores": 16}, False, a_project),
    Life("OS::Neutron::Quota", {"project": "tenant", "port": 8}, {"port": 16}, False, a_project),
    Life("OS::Cinder::Quota", {"project": "tenant", "volumes": 8}, {"volumes": 16}, False, a_project),
]


@pytest.mark.parametrize("life", LIVES, ids=lambda life: life.type_name)
def test_every_breadth_type_lives_its_life_in_process(life: Life) -> None:
    clock = SteppedClock()
    cloud = SimulatedCloud(
        CloudSettings(), clock=clock.now, sleep=clock.sleep, random_source=random.Random(5)
    )
    provider = SimulatedProvider(cloud)
    life.given(provider)
    mark = marker("subject")

    created = provider.create(life.type_name, life.properties, mark)
    found = provider.find_by_marker(life.type_name, mark)
    desired = {**life.properties, **life.change}
    updated = provider.update(life.type_name, created.physical_id, desired, frozenset(life.change))
    seen = provider.observe(life.type_name, [created.physical_id])[created.physical_id]

    assert created.status is LiveStatus.READY
    assert (found is not None and found.physical_id == created.physical_id) is life.marked
    assert updated.physical_id == created.physical_id
    expected = life.change if life.observed is None else life.observed(cloud)
    assert {name: seen.properties[name] for name in expected} == expected
    provider.delete(life.type_name, created.physical_id)
    if not life.type_name.endswith("::Quota"):
        assert provider.observe(life.type_name, [created.physical_id]) == {}
