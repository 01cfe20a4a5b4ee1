"""Scenario: the corpus's Magnum template converges on the simulated cloud (a cluster template, then
a cluster that builds), a change of the node count updates the cluster in place, and a cluster
deleted by hand comes back."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0

CLUSTER = """
heat_template_version: pike
parameters:
  node_count: {type: number, default: 1}
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: key}
  coe_cluster_template:
    type: OS::Magnum::ClusterTemplate
    properties:
      name: k8s
      image: cirros-0.6.2-x86_64-disk
      external_network: public
      coe: kubernetes
      flavor: m1.small
      keypair: {get_resource: key}
  coe_cluster:
    type: OS::Magnum::Cluster
    properties:
      cluster_template: {get_resource: coe_cluster_template}
      keypair: {get_resource: key}
      node_count: {get_param: node_count}
outputs:
  api_address: {value: {get_attr: [coe_cluster, api_address]}}
  nodes: {value: {get_attr: [coe_cluster, node_addresses]}}
"""


def test_a_cluster_converges_grows_in_place_and_comes_back_when_deleted(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url, observe_interval=OBSERVE_INTERVAL)
    world.commit({"stack.yaml": CLUSTER})
    world.submit("coe", "stack.yaml")

    report = world.converge("coe")["coe"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert str(world.outputs("coe")["api_address"]).startswith("https://")
    (cluster,) = world.live("clusters")
    assert cluster["status"] == "CREATE_COMPLETE"

    world.submit("coe", "stack.yaml", parameters={"node_count": 3})
    report = world.converge("coe")["coe"]

    assert report.status is StackStatus.CONVERGED, report.failures
    (grown,) = world.live("clusters")
    assert grown["uuid"] == cluster["uuid"] and grown["status"] == "UPDATE_COMPLETE"
    assert len(world.outputs("coe")["nodes"]) == 3

    world.cloud.vanish("clusters", cluster["uuid"])
    report = world.pass_time(OBSERVE_INTERVAL + 1, "coe")["coe"]
    report = world.converge("coe")["coe"]

    assert report.status is StackStatus.CONVERGED, report.failures
    (again,) = world.live("clusters")
    assert again["uuid"] != cluster["uuid"] and again["node_count"] == 3
    world.close()
