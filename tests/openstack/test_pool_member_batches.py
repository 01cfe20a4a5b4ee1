"""Octavia's batch member update, through openstacksdk against the simulated cloud over HTTP.

The face: `PUT /v2/lbaas/pools/{pool_id}/members` answers 202 and makes the pool's members the
list sent in one change of the load balancer (new ones PENDING_CREATE, listed ones updated, the
others PENDING_DELETE, or kept with `additive_only=true`), refused while the load balancer is busy
and when one address and port is listed twice. The provider: members of one pool created while
their load balancer is busy wait for it together and go as one batch call.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from providers.interface import LiveResource, LiveStatus
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import given_a_network, marker

SETTLE = 60.0  # more than the served cloud's time to ACTIVE
MEMBER = "OS::Octavia::PoolMember"


def given_a_pool(sim: CloudUnderTest) -> str:
    """An ACTIVE load balancer with a TCP listener and its pool: the pool's id."""
    given_a_network(sim.provider)
    made: list[str] = []
    for type_name, properties in (
        ("OS::Octavia::LoadBalancer", lambda: {"vip_subnet": "private-subnet"}),
        ("OS::Octavia::Listener", lambda: {"loadbalancer": made[0], "protocol": "TCP", "protocol_port": 80}),
        (
            "OS::Octavia::Pool",
            lambda: {"listener": made[1], "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"},
        ),
    ):
        made.append(sim.provider.create(type_name, properties(), marker(type_name)).physical_id)
        sim.clock.advance(SETTLE)
    return made[2]


def batch_update(sim: CloudUnderTest, pool_id: str, members: list[dict[str, Any]], query: str = "") -> Any:
    session = sim.provider.connection.load_balancer
    return session.put(f"/lbaas/pools/{pool_id}/members{query}", json={"members": members})


def members_of(sim: CloudUnderTest, pool_id: str) -> dict[str, dict[str, Any]]:
    return {str(m["address"]): m for m in sim.cloud.list("members") if m["_pool_id"] == pool_id}


def lb_status(sim: CloudUnderTest) -> str:
    (load_balancer,) = sim.cloud.list("loadbalancers")
    return str(load_balancer["provisioning_status"])


def test_a_batch_update_makes_the_pool_the_list_sent_in_one_change(sim: CloudUnderTest) -> None:
    pool = given_a_pool(sim)
    first = [{"address": f"10.0.0.{n}", "protocol_port": 6443} for n in (11, 12, 13)]

    assert batch_update(sim, pool, first).status_code == 202
    assert {m["provisioning_status"] for m in members_of(sim, pool).values()} == {"PENDING_CREATE"}
    assert lb_status(sim) == "PENDING_UPDATE"
    busy = batch_update(sim, pool, first[:1])
    assert busy.status_code == 409 and "immutable" in busy.json()["faultstring"]

    sim.clock.advance(SETTLE)
    assert lb_status(sim) == "ACTIVE"
    added = [{"address": "10.0.0.14", "protocol_port": 6443}]
    assert batch_update(sim, pool, added, "?additive_only=true").status_code == 202
    assert sorted(members_of(sim, pool)) == ["10.0.0.11", "10.0.0.12", "10.0.0.13", "10.0.0.14"]

    sim.clock.advance(SETTLE)
    kept = [{"address": "10.0.0.12", "protocol_port": 6443, "weight": 5}]
    assert batch_update(sim, pool, kept).status_code == 202
    members = members_of(sim, pool)
    assert (
        members["10.0.0.12"]["weight"] == 5
        and members["10.0.0.12"]["provisioning_status"] == "PENDING_UPDATE"
    )
    assert {members[a]["provisioning_status"] for a in ("10.0.0.11", "10.0.0.13", "10.0.0.14")} == {
        "PENDING_DELETE"
    }
    sim.clock.advance(SETTLE)
    assert list(members_of(sim, pool)) == ["10.0.0.12"]

    twice = batch_update(sim, pool, [*added, *added])
    assert twice.status_code == 400 and members_of(sim, pool).keys() == {"10.0.0.12"}


def test_members_created_together_while_their_load_balancer_is_busy_go_as_one_batch(
    sim: CloudUnderTest,
) -> None:
    pool = given_a_pool(sim)
    provider = sim.provider
    first = provider.create(MEMBER, {"pool": pool, "address": "10.0.0.10", "protocol_port": 80}, marker("m0"))
    assert lb_status(sim) == "PENDING_UPDATE"  # busy with that member: the next ones must wait
    sim.log.clear()

    made: dict[int, LiveResource] = {}

    def create(number: int) -> None:
        properties = {"pool": pool, "address": f"10.0.0.{20 + number}", "protocol_port": 80}
        made[number] = provider.create(MEMBER, properties, marker(f"m{number}"))

    threads = [threading.Thread(target=create, args=(number,)) for number in range(3)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # the three wait for the load balancer together (it stays busy until the clock moves)
    sim.clock.advance(SETTLE)
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(made) == [0, 1, 2]
    assert sim.log.count("PUT", "/members") == 1 and sim.log.count("POST", "/members") == 0
    assert {live.status for live in made.values()} == {LiveStatus.IN_PROGRESS}  # PENDING_CREATE
    sim.clock.advance(SETTLE)
    seen = provider.observe(MEMBER, [first.physical_id, *(live.physical_id for live in made.values())])
    assert {live.status for live in seen.values()} == {LiveStatus.READY} and len(seen) == 4
    assert sorted(seen[live.physical_id].properties["address"] for live in made.values()) == [
        "10.0.0.20",
        "10.0.0.21",
        "10.0.0.22",
    ]


def test_a_member_whose_address_is_taken_is_refused_alone(sim: CloudUnderTest) -> None:
    taken = "10.0.0.10"
    pool = given_a_pool(sim)
    provider = sim.provider
    provider.create(MEMBER, {"pool": pool, "address": taken, "protocol_port": 80}, marker("m0"))
    outcomes: dict[str, object] = {}

    def create(address: str) -> None:
        try:
            outcomes[address] = provider.create(
                MEMBER, {"pool": pool, "address": address, "protocol_port": 80}, marker(address)
            )
        except Exception as error:  # the outcome is what the test looks at
            outcomes[address] = error

    threads = [threading.Thread(target=create, args=(address,)) for address in (taken, "10.0.0.30")]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    sim.clock.advance(SETTLE)
    for thread in threads:
        thread.join(timeout=30)

    assert isinstance(outcomes["10.0.0.30"], LiveResource)
    refused = outcomes[taken]
    assert isinstance(refused, Exception) and getattr(refused, "conflict", False)
    assert "already using ip 10.0.0.10" in str(refused)
