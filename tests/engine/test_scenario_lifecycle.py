"""Scenario: create, update in place, replace and prune, each in dependency order, outputs right."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.engine.world import World

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  server_name: {type: string, default: web}
  user_data: {type: string, default: ""}
  with_extra: {type: boolean, default: false}
conditions:
  extra: {get_param: with_extra}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: app-net}
  port:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}}
  server:
    type: OS::Nova::Server
    properties:
      name: {get_param: server_name}
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data: {get_param: user_data}
      networks: [{port: {get_resource: port}}]
  label:
    type: OS::Heat::Value
    properties:
      value: {str_replace: {template: "server $ID", params: {$ID: {get_resource: server}}}}
  extra:
    type: OS::Neutron::Port
    condition: extra
    properties: {network: {get_resource: net}}
outputs:
  server_id: {value: {get_resource: server}}
  label: {value: {get_attr: [label, value]}}
"""


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url)
    yield world
    world.close()


def test_create_update_replace_prune(world: World) -> None:
    """Given a network, port, server and value; when the template changes four ways; the cloud follows."""
    world.commit({"stack.yaml": TEMPLATE})
    world.submit("app", "stack.yaml", {"with_extra": True})
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert (report.counts.created, report.counts.deleted) == (5, 0)
    servers = world.live("servers")
    assert [server["name"] for server in servers] == ["web"]
    first_id = servers[0]["id"]
    assert world.outputs("app") == {"server_id": first_id, "label": f"server {first_id}"}

    # update in place: a server's name changes without replacing it
    world.submit("app", "stack.yaml", {"with_extra": True, "server_name": "web-2"})
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED
    assert (report.counts.updated, report.counts.created, report.counts.replaced) == (1, 0, 0)
    assert [(server["id"], server["name"]) for server in world.live("servers")] == [(first_id, "web-2")]

    # replace: user_data replaces the server; the new one exists before the old one goes
    world.submit("app", "stack.yaml", {"with_extra": True, "server_name": "web-2", "user_data": "#!/bin/sh"})
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED
    assert report.counts.replaced == 1
    servers = world.live("servers")
    assert len(servers) == 1 and servers[0]["id"] != first_id
    assert world.outputs("app")["label"] == f"server {servers[0]['id']}"

    # prune: the extra port leaves the template and the cloud
    ports_before = len(world.live("ports"))
    world.submit("app", "stack.yaml", {"with_extra": False, "server_name": "web-2", "user_data": "#!/bin/sh"})
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED
    assert report.counts.deleted == 1
    assert len(world.live("ports")) == ports_before - 1
    assert set(world.records("app")) == {"net", "port", "server", "label"}


def write_calls(world: World) -> int:
    return sum(count for call, count in world.cloud.calls.items() if not call.startswith(("list", "get")))


def test_a_restarted_worker_converging_the_same_generation_changes_nothing(world: World) -> None:
    """Given a converged stack; when a fresh worker takes it over from the records; then no cloud writes."""
    world.commit({"stack.yaml": TEMPLATE})
    world.submit("app", "stack.yaml")
    world.converge("app")
    writes_before = write_calls(world)
    world.engine.close()
    world.leases.release_all()
    world.engine = world.start_worker("worker-b")
    world.submit("app", "stack.yaml")
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED
    assert (report.counts.created, report.counts.updated, report.counts.unchanged) == (0, 0, 4)
    assert write_calls(world) == writes_before
