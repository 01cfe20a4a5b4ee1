"""Scenario: a stack abandoned (Heat's `stack abandon`) leaves everything in the cloud and is no longer
managed; Heat's abandon data, or a hand-written map, adopts existing resources back creating nothing;
bad adopt data is refused whole with each problem named."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.interface import Marker
from reconciler.engine import StackReport, StackStatus
from reconciler.engine.abandon_data import abandon_data
from reconciler.templates.adopt_data import parse_adoption
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0
TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  web_name: {type: string, default: web}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: net}
  web:
    type: OS::Nova::Server
    properties: {name: {get_param: web_name}, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
  workers:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Nova::Server
        properties: {name: worker-%index%, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
outputs:
  web_id: {value: {get_resource: web}}
"""
SMALL = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: net}
  web:
    type: OS::Nova::Server
    properties: {name: web, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
"""


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url, observe_interval=OBSERVE_INTERVAL)
    yield world
    world.close()


def converge(world: World, template: str = TEMPLATE, **parameters: Any) -> StackReport:
    world.commit({"stack.yaml": template})
    world.submit("app", "stack.yaml", parameters)
    return world.converge("app", within=600.0)["app"]


def ids(world: World, collection: str) -> list[str]:
    """The ids a collection holds, the cloud's own seeded external network left out."""
    return sorted(str(item["id"]) for item in world.live(collection) if item.get("name") != "public")


def abandon(world: World) -> dict[str, Any]:
    """Abandon `app` as `reconciler abandon` does, then let this worker find its lease moved on."""
    data = abandon_data("app", world.store.read_stack, world.store.read_records)
    world.store.abandon("app", "abandoned in a test")
    world.pass_time(world.store.settings.lease_seconds + 1)
    world.rejoin()  # the shard is taken again at its new epoch, as a daemon's shard keeper does
    return data


def test_abandon_data_is_heats_shape_with_every_physical_id_and_nothing_leaves_the_cloud(
    world: World,
) -> None:
    converge(world)
    servers, networks = ids(world, "servers"), ids(world, "networks")
    web = world.records("app")["web"].physical_id

    data = abandon(world)

    assert {"name", "id", "action", "status", "template", "environment", "resources"} <= data.keys()
    assert (data["name"], data["action"], data["status"]) == ("app", "CREATE", "COMPLETE")
    assert data["resources"]["web"] == {
        "name": "web",
        "resource_id": web,
        "type": "OS::Nova::Server",
        "action": "CREATE",
        "status": "COMPLETE",
        "metadata": {},
        "resource_data": {},
    }
    members = data["resources"]["workers"]["resources"]  # a nested stack: its own abandon data
    assert data["resources"]["workers"]["name"] == "app/workers"
    assert sorted(members) == ["0", "1"]
    assert sorted(member["resource_id"] for member in members.values()) == sorted(set(servers) - {web})
    assert (ids(world, "servers"), ids(world, "networks")) == (servers, networks)
    assert world.records("app") == {} and world.records("app/workers") == {}
    stored = world.store.read_stack("app")
    assert stored is not None and stored.status is StackStatus.ABANDONED


def test_an_abandoned_stack_still_declared_is_neither_made_again_nor_pruned(world: World) -> None:
    converge(world)
    servers = ids(world, "servers")
    abandon(world)
    world.cloud.vanish("servers", servers[0])

    report = converge(world, web_name="renamed")
    later = world.pass_time(OBSERVE_INTERVAL * 2, "app")["app"]

    assert report.status is StackStatus.ABANDONED and later.status is StackStatus.ABANDONED
    assert "not managed" in str(report.failures[0])
    assert ids(world, "servers") == servers[1:]  # nothing made again, nothing renamed
    assert world.engine.remove_nested("app")  # removing it deletes nothing: it holds no records
    assert ids(world, "servers") == servers[1:]


def test_a_worker_converging_the_stack_stops_at_once_when_it_is_abandoned(world: World) -> None:
    converge(world)
    servers = ids(world, "servers")
    world.store.abandon("app", "abandoned in a test")  # while this worker holds the stack in memory
    world.cloud.vanish("servers", servers[0])

    world.pass_time(OBSERVE_INTERVAL * 2, "app")
    world.rejoin()
    report = world.pass_time(OBSERVE_INTERVAL, "app")["app"]

    assert report.status is StackStatus.ABANDONED
    assert ids(world, "servers") == servers[1:]
    assert world.records("app") == {}


def test_abandon_data_adopted_back_takes_every_resource_creating_nothing_and_manages_it(world: World) -> None:
    converge(world)
    servers, networks = ids(world, "servers"), ids(world, "networks")
    web = world.records("app")["web"].physical_id
    ours = world.records("app")["net"].physical_id
    data = abandon(world)

    world.submit("app", "stack.yaml", adoption=parse_adoption("abandon.json", data))
    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert report.counts.created == 0
    assert (ids(world, "servers"), ids(world, "networks")) == (servers, networks)
    assert world.records("app")["web"].physical_id == web
    assert world.outputs("app") == {"web_id": web}
    renamed = converge(world, web_name="renamed")  # managed: a change of the template updates it
    assert renamed.status is StackStatus.CONVERGED, renamed.failures
    assert {item["id"]: item["name"] for item in world.live("servers")}[web] == "renamed"
    world.step_until(lambda: world.engine.remove_nested("app"))  # and removing the stack deletes it
    net = ours
    assert world.live("servers") == [] and net not in ids(world, "networks")


def test_a_hand_written_map_adopts_resources_made_outside_any_stack(world: World) -> None:
    net = str(world.cloud.create("networks", {"name": "net"})["id"])
    web = world.sim.create(
        "OS::Nova::Server",
        {"name": "web", "image": "cirros-0.6.2-x86_64-disk", "flavor": "m1.small"},
        marker_of_nobody(),
    ).physical_id
    world.commit({"stack.yaml": SMALL, "adopt.yaml": f"net: {net}\nweb: {web}\n"})

    world.submit("app", "stack.yaml", adoption=parse_adoption("adopt.yaml", {"net": net, "web": web}))
    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert (ids(world, "networks"), ids(world, "servers")) == ([net], [web])
    assert {name: record.physical_id for name, record in world.records("app").items()} == {
        "net": net,
        "web": web,
    }


def test_bad_adopt_data_is_refused_whole_with_each_problem_named_and_nothing_made(world: World) -> None:
    net = str(world.cloud.create("networks", {"name": "net"})["id"])
    world.commit({"stack.yaml": SMALL})
    data = {
        "name": "app",
        "id": "x",
        "template": {},
        "resources": {
            "net": {"resource_id": net, "type": "OS::Neutron::Router"},
            "db": {"resource_id": "3f6b2a7e-0000-4000-8000-000000000001", "type": "OS::Nova::Server"},
        },
    }

    world.submit("app", "stack.yaml", adoption=parse_adoption("adopt.json", data))
    report = world.converge("app")["app"]

    assert report.status is StackStatus.INVALID
    reasons = sorted(failure.reason for failure in report.failures)
    assert reasons == [
        "adopt.json: resource db does not exist in the template",
        "adopt.json: resource net is OS::Neutron::Router in the adopt data "
        "but OS::Neutron::Net in the template",
        "adopt.json: resource web (OS::Nova::Server) is not named: adopting creates nothing, "
        "so every resource of the template held in a cloud must be named",
    ]
    assert (ids(world, "networks"), world.live("servers")) == ([net], [])
    assert world.records("app") == {}


def test_an_id_the_cloud_does_not_hold_is_refused(world: World) -> None:
    world.commit({"stack.yaml": SMALL})
    net = str(world.cloud.create("networks", {"name": "net"})["id"])
    missing = "3f6b2a7e-0000-4000-8000-000000000002"

    world.submit("app", "stack.yaml", adoption=parse_adoption("adopt.yaml", {"net": net, "web": missing}))
    report = world.converge("app")["app"]

    assert report.status is StackStatus.INVALID
    assert [failure.reason for failure in report.failures] == [
        f"adopt.yaml: resource web: no OS::Nova::Server {missing} exists in the cloud"
    ]
    assert world.live("servers") == [] and world.records("app") == {}


def marker_of_nobody() -> Marker:
    """A marker no stack here wrote: the server was made by someone else."""
    return Marker("elsewhere", "web", "1")


def test_bad_adopt_data_for_an_abandoned_stack_leaves_it_abandoned(world: World) -> None:
    converge(world)
    servers = ids(world, "servers")
    abandon(world)

    world.submit("app", "stack.yaml", adoption=parse_adoption("adopt.yaml", {"nothing": "x"}))
    refused = world.converge("app")["app"]
    world.submit("app", "stack.yaml")  # the adopt data taken away again
    after = world.converge("app")["app"]

    assert refused.status is StackStatus.INVALID
    assert after.status is StackStatus.ABANDONED
    assert ids(world, "servers") == servers
