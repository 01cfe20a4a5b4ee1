"""The Octavia types, one table row each, through the real openstacksdk against the simulated cloud
over HTTP: create (PENDING_CREATE, then ACTIVE), update in place, find by marker, drift seen by
observe, the replacement a changed immutable property asks for, and delete (PENDING_DELETE, then
gone). A load balancer busy with a change refuses its tree's changes until it is ACTIVE again, and
the provider says so as a short wait.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from providers.catalog import CATALOG
from providers.interface import LiveResource, LiveStatus, NotFound, Permanent, Retryable
from providers.openstack.request_log import RequestLog
from tests.openstack.conftest import CLOUD_NAME, CloudUnderTest
from tests.openstack.scenario import given_a_network, marker

SETTLE = 60.0  # more than the served cloud's time to ACTIVE


@dataclass(frozen=True)
class Tree:
    """An ACTIVE load balancer with an HTTP listener, its default pool and one L7 policy."""

    load_balancer: str
    listener: str
    pool: str
    policy: str


def settled(sim: CloudUnderTest, type_name: str, live: LiveResource) -> LiveResource:
    sim.clock.advance(SETTLE)
    return sim.provider.observe(type_name, [live.physical_id])[live.physical_id]


def given_a_tree(sim: CloudUnderTest) -> Tree:
    provider = sim.provider
    given_a_network(provider)
    made: list[str] = []
    for type_name, properties in (
        ("OS::Octavia::LoadBalancer", lambda: {"vip_subnet": "private-subnet"}),
        ("OS::Octavia::Listener", lambda: {"loadbalancer": made[0], "protocol": "HTTP", "protocol_port": 80}),
        (
            "OS::Octavia::Pool",
            lambda: {"listener": made[1], "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"},
        ),
        ("OS::Octavia::L7Policy", lambda: {"listener": made[1], "action": "REJECT"}),
    ):
        live = provider.create(type_name, properties(), marker(type_name.rsplit("::", 1)[-1]))
        assert settled(sim, type_name, live).status is LiveStatus.READY
        made.append(live.physical_id)
    return Tree(*made)


@dataclass(frozen=True)
class Row:
    type_name: str
    collection: str  # the simulated cloud's collection, for changes behind the provider's back
    properties: Callable[[Tree], Mapping[str, Any]]
    changed: Mapping[str, Any]  # an in-place update, as observe reports it back
    replaced: Mapping[str, Any]  # a change of a property Octavia cannot update: a new object
    drift: Mapping[str, Any]  # a body field someone changes by hand, and its property


ROWS = [
    Row(
        "OS::Octavia::LoadBalancer",
        "loadbalancers",
        lambda t: {"vip_subnet": "private-subnet", "name": "front"},
        {"name": "front-2", "admin_state_up": False},
        {"vip_address": "10.0.0.200"},
        {"description": "by hand"},
    ),
    Row(
        "OS::Octavia::Listener",
        "listeners",
        lambda t: {"loadbalancer": t.load_balancer, "protocol": "TCP", "protocol_port": 8443},
        {"connection_limit": 100, "description": "tls"},
        {"protocol_port": 8444},
        {"connection_limit": 7},
    ),
    Row(
        "OS::Octavia::Pool",
        "pools",
        lambda t: {"loadbalancer": t.load_balancer, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"},
        {"lb_algorithm": "LEAST_CONNECTIONS"},
        {"protocol": "PROXY"},
        {"lb_algorithm": "SOURCE_IP"},
    ),
    Row(
        "OS::Octavia::PoolMember",
        "members",
        lambda t: {"pool": t.pool, "address": "10.0.0.30", "protocol_port": 8080},
        {"weight": 5},
        {"protocol_port": 8081},
        {"weight": 9},
    ),
    Row(
        "OS::Octavia::HealthMonitor",
        "healthmonitors",
        lambda t: {"pool": t.pool, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 3},
        {"delay": 10, "url_path": "/healthz"},
        {"type": "TCP"},
        {"max_retries": 9},
    ),
    Row(
        "OS::Octavia::L7Policy",
        "l7policies",
        lambda t: {"listener": t.listener, "action": "REDIRECT_TO_URL", "redirect_url": "https://a.example"},
        {"redirect_url": "https://b.example", "name": "away"},
        {},
        {"position": 7},
    ),
    Row(
        "OS::Octavia::L7Rule",
        "l7rules",
        lambda t: {"l7policy": t.policy, "type": "PATH", "compare_type": "STARTS_WITH", "value": "/admin"},
        {"value": "/private", "invert": True},
        {},
        {"value": "/elsewhere"},
    ),
    Row(
        "OS::Octavia::Flavor",
        "lb_flavors",
        lambda t: {"flavor_profile": "amphora-single", "name": "small"},
        {"enabled": False, "name": "small-2"},
        {},
        {"enabled": True},
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.type_name.rsplit("::", 1)[-1])
def test_every_octavia_type_lives_its_whole_life(sim: CloudUnderTest, row: Row) -> None:
    provider = sim.provider
    tree = given_a_tree(sim)
    properties = dict(row.properties(tree))
    asynchronous = CATALOG[row.type_name].asynchronous

    created = provider.create(row.type_name, properties, marker("thing"))
    assert created.status is (LiveStatus.IN_PROGRESS if asynchronous else LiveStatus.READY)
    live = settled(sim, row.type_name, created)
    assert live.status is LiveStatus.READY
    assert live.marker == created.marker

    provider.update(row.type_name, created.physical_id, {**properties, **row.changed}, frozenset(row.changed))
    updated = settled(sim, row.type_name, created)
    assert {name: updated.properties[name] for name in row.changed} == row.changed
    assert created.marker is not None
    found = provider.find_by_marker(row.type_name, created.marker)
    assert found is not None and found.physical_id == created.physical_id

    sim.cloud.change(row.collection, created.physical_id, row.drift)
    drifted = provider.observe(row.type_name, [created.physical_id])[created.physical_id]
    assert {name: drifted.properties[name] for name in row.drift} == row.drift

    current = created.physical_id
    if row.replaced:
        assert CATALOG[row.type_name].replace_reasons(frozenset(row.replaced)) == frozenset(row.replaced)
        current = replaced(sim, row, {**properties, **row.replaced}, current)

    provider.delete(row.type_name, current)
    sim.clock.advance(SETTLE)
    assert provider.observe(row.type_name, [current]) == {}
    with pytest.raises(NotFound):
        provider.delete(row.type_name, current)


def replaced(sim: CloudUnderTest, row: Row, properties: Mapping[str, Any], old: str) -> str:
    """The engine's replacement: create the new one first; when Octavia says the old one is in the
    way (a pool holds one health monitor), delete the old one first."""
    provider = sim.provider
    try:
        new = provider.create(row.type_name, properties, marker("thing"))
    except Retryable as error:
        assert error.conflict, error
        provider.delete(row.type_name, old)
        sim.clock.advance(SETTLE)
        new = provider.create(row.type_name, properties, marker("thing"))
    else:
        settled(sim, row.type_name, new)
        provider.delete(row.type_name, old)
    assert settled(sim, row.type_name, new).properties.items() >= dict(row.replaced).items()
    sim.clock.advance(SETTLE)
    assert provider.observe(row.type_name, [old]) == {}
    return new.physical_id


def test_the_tree_waits_while_its_load_balancer_applies_a_change(sim: CloudUnderTest) -> None:
    provider = sim.provider
    given_a_network(provider)
    lb = provider.create("OS::Octavia::LoadBalancer", {"vip_subnet": "private-subnet"}, marker("lb"))
    listener = {"loadbalancer": lb.physical_id, "protocol": "HTTP", "protocol_port": 80}

    with pytest.raises(Retryable) as busy:
        provider.create("OS::Octavia::Listener", listener, marker("listener"))
    assert "immutable" in str(busy.value) and not busy.value.conflict and busy.value.after is None

    sim.clock.advance(SETTLE)
    made = provider.create("OS::Octavia::Listener", listener, marker("listener"))
    assert sim.cloud.get("loadbalancers", lb.physical_id)["provisioning_status"] == "PENDING_UPDATE"
    with pytest.raises(Retryable):
        provider.delete("OS::Octavia::Listener", made.physical_id)
    sim.clock.advance(SETTLE)
    assert sim.cloud.get("loadbalancers", lb.physical_id)["provisioning_status"] == "ACTIVE"
    assert settled(sim, "OS::Octavia::Listener", made).attributes["operating_status"] == "ONLINE"


def test_a_load_balancer_holds_its_vip_port_until_it_is_gone(sim: CloudUnderTest) -> None:
    provider = sim.provider
    network = given_a_network(provider)
    lb = provider.create("OS::Octavia::LoadBalancer", {"vip_network": "private"}, marker("lb"))
    port_id = lb.attributes["vip_port_id"]
    port = sim.cloud.get("ports", port_id)
    assert port["device_owner"] == "Octavia"
    assert port["fixed_ips"][0] == {
        "subnet_id": network.subnet.physical_id,
        "ip_address": lb.attributes["vip_address"],
    }

    sim.clock.advance(SETTLE)
    provider.delete("OS::Octavia::LoadBalancer", lb.physical_id)
    assert sim.cloud.get("loadbalancers", lb.physical_id)["provisioning_status"] == "PENDING_DELETE"
    sim.clock.advance(SETTLE)
    assert sim.cloud.count("loadbalancers") == 0
    with pytest.raises(Exception, match="could not be found"):
        sim.cloud.get("ports", port_id)


def test_a_load_balancer_with_children_is_deleted_only_by_cascade(sim: CloudUnderTest) -> None:
    tree = given_a_tree(sim)
    with pytest.raises(Permanent, match="it has children"):
        sim.provider.delete("OS::Octavia::LoadBalancer", tree.load_balancer)

    sim.cloud.act("loadbalancers", tree.load_balancer, "octavia_delete", {"cascade": True})
    sim.clock.advance(SETTLE)
    assert [sim.cloud.count(name) for name in ("loadbalancers", "listeners", "pools", "l7policies")] == [
        0
    ] * 4


def test_members_report_no_monitor_until_their_pool_has_one(sim: CloudUnderTest) -> None:
    tree = given_a_tree(sim)
    provider = sim.provider
    member = provider.create(
        "OS::Octavia::PoolMember",
        {"pool": tree.pool, "address": "10.0.0.40", "protocol_port": 80},
        marker("m"),
    )
    assert settled(sim, "OS::Octavia::PoolMember", member).attributes["operating_status"] == "NO_MONITOR"

    monitor = {"pool": tree.pool, "type": "PING", "delay": 5, "timeout": 3, "max_retries": 2}
    provider.create("OS::Octavia::HealthMonitor", monitor, marker("hm"))
    assert settled(sim, "OS::Octavia::PoolMember", member).attributes["operating_status"] == "ONLINE"


def test_members_of_many_pools_are_observed_with_one_list_per_pool(sim: CloudUnderTest) -> None:
    """Members live under their pool: a fresh provider finds each member's pool from one list of
    pools, then reads one list per pool, never one GET per member."""
    tree = given_a_tree(sim)
    provider = sim.provider
    second_pool = provider.create(
        "OS::Octavia::Pool",
        {"loadbalancer": tree.load_balancer, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"},
        marker("second"),
    ).physical_id
    members = []
    for index in range(6):
        sim.clock.advance(SETTLE)
        pool = tree.pool if index % 2 else second_pool
        properties = {"pool": pool, "address": f"10.0.0.{100 + index}", "protocol_port": 80}
        members.append(
            provider.create("OS::Octavia::PoolMember", properties, marker(f"m{index}")).physical_id
        )
    sim.clock.advance(SETTLE)
    fresh = type(provider).from_cloud(CLOUD_NAME)
    log = RequestLog().attach(fresh.connection)

    seen = fresh.observe("OS::Octavia::PoolMember", members)

    assert sorted(seen) == sorted(members)
    assert log.count("GET", "/lbaas/pools") == 1 + 2  # the pools, then each pool's members
    assert log.count("GET", "/members/") == 0
    fresh.connection.close()
