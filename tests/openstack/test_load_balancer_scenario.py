"""Scenario: a load balancer in front of three servers converges through this provider, over HTTP.

Given a template of a network, three servers and a load balancer with a listener, a pool, a health
monitor and one member per server; when the engine converges it on a cloud whose load balancer
takes time to apply each change, then every object is ACTIVE and the members are monitored; when a
member is deleted behind the engine's back, then it is made again; when the pool's algorithm
changes, then the pool is updated in place; when the listener's port changes, then the listener
(and the pool, monitor and members hanging from it) are replaced; when the load balancer leaves
the template, then its whole tree is pruned and its VIP port with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings
from reconciler.engine import StackStatus
from tests.openstack.conftest import StartCloud
from tests.openstack.test_engine_scenario import EngineOnOpenStack
from timekeeping.testing import SteppedClock

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  algorithm: {type: string, default: ROUND_ROBIN}
  port: {type: number, default: 80}
  balanced: {type: boolean, default: true}
conditions:
  balanced: {get_param: balanced}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: web-net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.0.0.0/24}
  web0: &server
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      networks: [{network: {get_resource: net}}]
  web1: *server
  web2: *server
  lb:
    type: OS::Octavia::LoadBalancer
    condition: balanced
    properties: {vip_subnet: {get_resource: subnet}}
  listener:
    type: OS::Octavia::Listener
    condition: balanced
    properties: {loadbalancer: {get_resource: lb}, protocol: HTTP, protocol_port: {get_param: port}}
  pool:
    type: OS::Octavia::Pool
    condition: balanced
    properties: {listener: {get_resource: listener}, protocol: HTTP, lb_algorithm: {get_param: algorithm}}
  monitor:
    type: OS::Octavia::HealthMonitor
    condition: balanced
    properties: {pool: {get_resource: pool}, type: HTTP, delay: 5, timeout: 3, max_retries: 3}
  member0: &member
    type: OS::Octavia::PoolMember
    condition: balanced
    properties:
      pool: {get_resource: pool}
      address: {get_attr: [web0, first_address]}
      protocol_port: 8080
      subnet: {get_resource: subnet}
  member1:
    <<: *member
    properties:
      pool: {get_resource: pool}
      address: {get_attr: [web1, first_address]}
      protocol_port: 8080
      subnet: {get_resource: subnet}
  member2:
    <<: *member
    properties:
      pool: {get_resource: pool}
      address: {get_attr: [web2, first_address]}
      protocol_port: 8080
      subnet: {get_resource: subnet}
outputs:
  vip:
    condition: balanced
    value: {get_attr: [lb, vip_address]}
"""

OCTAVIA_DELETES = (
    10.0  # an accepted delete leaves the object PENDING_DELETE this long (time to ACTIVE, and more)
)


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str, start_cloud: StartCloud) -> Iterator[EngineOnOpenStack]:
    clock = SteppedClock()
    settings = CloudSettings(time_to_active=5.0)
    world = EngineOnOpenStack(tmp_path, sqlite_url, start_cloud(settings=settings, clock=clock), clock)
    yield world
    world.close()


def test_a_load_balancer_in_front_of_three_servers_converges_heals_updates_replaces_and_prunes(
    world: EngineOnOpenStack,
) -> None:
    world.commit(TEMPLATE)

    report = world.converge()

    assert report.status is StackStatus.CONVERGED, report.failures
    server_addresses = sorted(server["addresses"]["web-net"][0]["addr"] for server in world.live("servers"))
    members = world.live("members")
    assert sorted(member["address"] for member in members) == server_addresses
    assert {member["operating_status"] for member in members} == {"ONLINE"}
    everything = [
        *world.live("loadbalancers"),
        *world.live("listeners"),
        *world.live("pools"),
        *world.live("healthmonitors"),
        *members,
    ]
    assert {item["provisioning_status"] for item in everything} == {"ACTIVE"}
    vip = world.store.read_outputs("app")["vip"]
    assert vip == world.live("loadbalancers")[0]["vip_address"] and str(vip).startswith("10.0.0.")

    # drift: a member deleted by hand is made again
    world.sim.cloud.vanish("members", members[0]["id"])
    report = world.pass_time(120)
    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(member["address"] for member in world.live("members")) == server_addresses

    # update in place: the pool keeps its id
    pool_id = world.live("pools")[0]["id"]
    report = world.converge({"algorithm": "LEAST_CONNECTIONS"})
    assert report.status is StackStatus.CONVERGED, report.failures
    assert [(pool["id"], pool["lb_algorithm"]) for pool in world.live("pools")] == [
        (pool_id, "LEAST_CONNECTIONS")
    ]

    # replace: a listener cannot change its port, so a new one (and a new tree under it) is made
    listener_id = world.live("listeners")[0]["id"]
    report = world.converge({"algorithm": "LEAST_CONNECTIONS", "port": 8000})
    assert report.status is StackStatus.CONVERGED, report.failures
    world.pass_time(OCTAVIA_DELETES)
    listeners = world.live("listeners")
    assert [listener["protocol_port"] for listener in listeners] == [8000]
    assert (
        listeners[0]["id"] != listener_id and listeners[0]["default_pool_id"] == world.live("pools")[0]["id"]
    )
    assert len(world.live("members")) == 3 and len(world.live("healthmonitors")) == 1

    # prune: the load balancer's tree leaves the template, and its VIP port goes with it
    report = world.converge({"balanced": False})
    assert report.status is StackStatus.CONVERGED, report.failures
    world.pass_time(OCTAVIA_DELETES)
    for collection in ("loadbalancers", "listeners", "pools", "healthmonitors", "members"):
        assert world.live(collection) == [], collection
    assert [port for port in world.live("ports") if port["device_owner"] == "Octavia"] == []
