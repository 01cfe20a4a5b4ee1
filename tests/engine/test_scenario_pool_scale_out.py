"""Scenario: a group of load-balanced nodes grows, and only the new nodes are touched.

Given a load balancer with a listener and a pool, and a resource group of nodes, each a nested
template of a port, a server on it, a volume attached to it, a floating IP and a member of the
pool; when the engine has converged it on a cloud where every Octavia change takes time and a
commit grows the group, then the cloud sees creates for the new nodes only (their members in as
many Octavia changes as there are new members at most) and no update, delete or read of anything
the first nodes hold, whose bodies in the cloud are as they were.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings
from reconciler.engine import StackStatus
from tests.engine.world import World

NODE = """
heat_template_version: 2018-08-31
parameters:
  pool: {type: string}
  subnet: {type: string}
  network: {type: string}
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: {get_param: network}, fixed_ips: [{subnet: {get_param: subnet}}]}
  server:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, networks: [{port: {get_resource: port}}]}
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1}
  attachment:
    type: OS::Cinder::VolumeAttachment
    properties: {instance_uuid: {get_resource: server}, volume_id: {get_resource: volume}}
  floating:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: public, port_id: {get_resource: port}}
  member:
    type: OS::Octavia::PoolMember
    properties:
      pool: {get_param: pool}
      subnet: {get_param: subnet}
      protocol_port: 30080
      address: {get_attr: [port, fixed_ips, 0, ip_address]}
"""
CLUSTER = """
heat_template_version: 2018-08-31
parameters:
  nodes: {type: number}
resources:
  network:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: network}, cidr: 10.0.0.0/24}
  lb:
    type: OS::Octavia::LoadBalancer
    properties: {vip_subnet: {get_resource: subnet}}
  listener:
    type: OS::Octavia::Listener
    properties: {loadbalancer: {get_resource: lb}, protocol: TCP, protocol_port: 80}
  pool:
    type: OS::Octavia::Pool
    properties: {listener: {get_resource: listener}, protocol: TCP, lb_algorithm: ROUND_ROBIN}
  nodes:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: nodes}
      resource_def:
        type: node.yaml
        properties:
          pool: {get_resource: pool}
          subnet: {get_resource: subnet}
          network: {get_resource: network}
"""
NODE_KINDS = ("ports", "servers", "volumes", "floatingips")


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url, cloud=CloudSettings(time_to_active=2.0))
    world.commit({"cluster.yaml": CLUSTER, "node.yaml": NODE})
    yield world
    world.close()


def converged(world: World, nodes: int) -> Counter[tuple[str, str]]:
    """The cloud calls the convergence of `nodes` nodes made, per (operation, collection)."""
    before = Counter(world.cloud.calls_by_collection)
    world.submit("cluster", "cluster.yaml", {"nodes": nodes})
    report = world.converge("cluster")["cluster"]
    assert report.status is StackStatus.CONVERGED, report.failures
    calls = Counter(world.cloud.calls_by_collection)
    calls.subtract(before)
    return +calls


def bodies(world: World, collection: str) -> dict[str, dict[str, object]]:
    return {str(body["id"]): body for body in world.live(collection)}


def test_a_grown_group_touches_only_its_new_nodes(world: World) -> None:
    converged(world, 4)
    members = bodies(world, "members")
    assert len(members) == 4 and {m["provisioning_status"] for m in members.values()} == {"ACTIVE"}
    before = {collection: bodies(world, collection) for collection in (*NODE_KINDS, "members")}

    grown = converged(world, 7)

    for kind in NODE_KINDS:
        assert grown["create", kind] == 3, (kind, grown)
    # the new members, one by one or as batch member updates (those created at once go together)
    assert grown["create", "members"] + grown["update", "pools"] <= 3
    assert grown["update", "servers"] == 3  # the new volumes' attachments, nothing else
    # reads only of the load balancer, whose status the batch waits on; no write but the new ones'
    assert [key for key in grown if key[0] == "get" and key[1] != "loadbalancers"] == []
    assert [key for key in grown if key[0] == "delete"] == []
    assert [key for key in grown if key[0] == "update" and key[1] not in ("servers", "pools")] == []
    after = {collection: bodies(world, collection) for collection in (*NODE_KINDS, "members")}
    for collection, old in before.items():
        assert len(after[collection]) == len(old) + 3
        assert [item_id for item_id, body in old.items() if after[collection][item_id] != body] == []
