"""The Octavia types on the simulated cloud in process (the `sim` cloud's provider): the tree waits
for its load balancer, readiness follows provisioning_status, deletes are asynchronous, drift is seen."""

from __future__ import annotations

import random

import pytest

from providers.interface import LiveStatus, Marker, NotFound, Retryable
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings
from timekeeping.testing import SteppedClock


def marker(name: str) -> Marker:
    return Marker("app", name, f"{sum(map(ord, name)):08d}-0000-4000-8000-000000000000")


def test_a_load_balancer_tree_lives_its_life_in_process() -> None:
    clock = SteppedClock()
    cloud = SimulatedCloud(CloudSettings(time_to_active=5.0), clock=clock.now, random_source=random.Random(3))
    provider = SimulatedProvider(cloud)
    net = provider.create("OS::Neutron::Net", {"name": "private"}, marker("net"))
    provider.create(
        "OS::Neutron::Subnet", {"network": net.physical_id, "cidr": "10.0.0.0/24"}, marker("subnet")
    )

    lb = provider.create("OS::Octavia::LoadBalancer", {"vip_network": "private"}, marker("lb"))
    assert lb.status is LiveStatus.IN_PROGRESS and lb.attributes["vip_address"] == "10.0.0.2"
    listener = {"loadbalancer": lb.physical_id, "protocol": "HTTP", "protocol_port": 80}
    with pytest.raises(Retryable) as busy:
        provider.create("OS::Octavia::Listener", listener, marker("listener"))
    assert not busy.value.conflict

    clock.advance(10)
    made = provider.create("OS::Octavia::Listener", listener, marker("listener"))
    clock.advance(10)
    pool = provider.create(
        "OS::Octavia::Pool",
        {"listener": made.physical_id, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"},
        marker("pool"),
    )
    clock.advance(10)
    member = provider.create(
        "OS::Octavia::PoolMember",
        {"pool": pool.physical_id, "address": "10.0.0.9", "protocol_port": 80},
        marker("member"),
    )
    clock.advance(10)
    seen = provider.observe("OS::Octavia::PoolMember", [member.physical_id])[member.physical_id]
    assert seen.status is LiveStatus.READY and seen.properties["pool"] == pool.physical_id
    assert provider.find_by_marker("OS::Octavia::PoolMember", marker("member")) is not None

    provider.update(
        "OS::Octavia::Pool", pool.physical_id, {"lb_algorithm": "SOURCE_IP"}, frozenset({"lb_algorithm"})
    )
    clock.advance(10)
    assert (
        provider.observe("OS::Octavia::Pool", [pool.physical_id])[pool.physical_id].properties["lb_algorithm"]
        == "SOURCE_IP"
    )

    cloud.vanish("members", member.physical_id)
    assert provider.observe("OS::Octavia::PoolMember", [member.physical_id]) == {}

    provider.delete("OS::Octavia::Pool", pool.physical_id)
    assert (
        provider.observe("OS::Octavia::Pool", [pool.physical_id])[pool.physical_id].status
        is LiveStatus.IN_PROGRESS
    )
    clock.advance(10)
    with pytest.raises(NotFound):
        provider.delete("OS::Octavia::Pool", pool.physical_id)

    flavor = provider.create("OS::Octavia::Flavor", {"flavor_profile": "amphora-single"}, marker("flavor"))
    assert flavor.status is LiveStatus.READY and flavor.marker == marker("flavor")
    assert provider.find_by_marker("OS::Octavia::Flavor", marker("flavor")) is not None
