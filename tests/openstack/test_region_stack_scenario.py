"""Scenario: an OS::Heat::Stack whose context names another region of its cloud is built there,
through openstacksdk over HTTP against a simulated cloud serving RegionOne and RegionTwo.

Given a parent stack on the clouds.yaml entry (RegionOne) holding a nested stack in RegionTwo;
when the engine converges it, then the nested stack's network and server are in RegionTwo and
nothing of it is in RegionOne; when its server is renamed, then it is updated in place there; when
the server vanishes from RegionTwo, then it is made again there, also by an engine started anew on
the same database; when the nested stack leaves the template, then RegionTwo is emptied; a region
the catalog does not list is refused before anything is built.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.settings import CloudSettings
from reconciler.engine import StackReport, StackStatus
from tests.openstack.conftest import CLOUD_NAME, CloudUnderTest, StartCloud
from tests.openstack.test_engine_scenario import EngineOnOpenStack
from timekeeping.testing import SteppedClock

PARENT = """
heat_template_version: 2018-08-31
parameters:
  region: {type: string, default: RegionTwo}
  server_name: {type: string, default: far-web}
  with_far: {type: boolean, default: true}
conditions:
  far: {get_param: with_far}
resources:
  near:
    type: OS::Neutron::Net
    properties: {name: near-net}
  far:
    type: OS::Heat::Stack
    condition: far
    properties:
      context: {region_name: {get_param: region}}
      template: {get_file: far.yaml}
      parameters: {server_name: {get_param: server_name}}
outputs:
  far_address:
    condition: far
    value: {get_attr: [far, outputs, address]}
"""

FAR = """
heat_template_version: 2018-08-31
parameters:
  server_name: {type: string}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: far-net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.2.0.0/24}
  server:
    type: OS::Nova::Server
    properties:
      name: {get_param: server_name}
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      networks: [{network: {get_resource: net}}]
outputs:
  address: {value: {get_attr: [server, first_address]}}
"""


class RegionWorld(EngineOnOpenStack):
    """The parent and its far nested stack committed, on the served two-region cloud."""

    def __init__(self, root: Path, database_url: str, sim: CloudUnderTest, clock: SteppedClock) -> None:
        super().__init__(root, database_url, sim, clock)
        self.commit(PARENT, **{"far.yaml": FAR})

    def region(self, name: str) -> SimulatedCloud:
        return self.sim.cloud.in_region(name)

    def in_region(self, region: str, collection: str) -> list[dict[str, Any]]:
        cloud = self.region(region)
        cloud.count(collection)
        return [dict(item) for item in cloud.world.inventory(collection)]

    def names(self, region: str, collection: str) -> list[str]:
        return sorted(str(item.get("name")) for item in self.in_region(region, collection))


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str, start_cloud: StartCloud) -> Iterator[RegionWorld]:
    clock = SteppedClock()
    settings = CloudSettings(time_to_active=5.0, regions=("RegionTwo",))
    world = RegionWorld(tmp_path, sqlite_url, start_cloud(settings=settings, clock=clock), clock)
    yield world
    world.close()


def _failures(report: StackReport) -> str:
    return "; ".join(str(failure) for failure in report.failures)


def test_a_nested_stack_in_another_region_is_built_updated_repaired_and_deleted_there(
    world: RegionWorld,
) -> None:
    report = world.converge()

    assert report.status is StackStatus.CONVERGED, _failures(report)
    assert world.names("RegionTwo", "servers") == ["far-web"]
    assert "far-net" in world.names("RegionTwo", "networks")
    assert world.in_region("RegionOne", "servers") == []
    assert "far-net" not in world.names("RegionOne", "networks")
    assert "near-net" in world.names("RegionOne", "networks")
    assert "near-net" not in world.names("RegionTwo", "networks")
    assert str(world.store.read_outputs("app")["far_address"]).startswith("10.2.0.")

    # update in place, in RegionTwo
    (server,) = world.in_region("RegionTwo", "servers")
    report = world.converge({"server_name": "far-web-2"})
    assert report.status is StackStatus.CONVERGED, _failures(report)
    renamed = [(s["id"], s["name"]) for s in world.in_region("RegionTwo", "servers")]
    assert renamed == [(server["id"], "far-web-2")]

    # drift repaired in RegionTwo, by an engine started anew on the same database
    world.region("RegionTwo").vanish("servers", server["id"])
    world.restart()
    world.converge({"server_name": "far-web-2"})  # what the daemon does on start: the tracked commit again
    report = world.pass_time(120)
    assert report.status is StackStatus.CONVERGED, _failures(report)
    (remade,) = world.in_region("RegionTwo", "servers")
    assert remade["id"] != server["id"] and remade["name"] == "far-web-2"
    assert world.in_region("RegionOne", "servers") == []

    # the nested stack leaves the template: RegionTwo is emptied of it
    report = world.converge({"server_name": "far-web-2", "with_far": False})
    assert report.status is StackStatus.CONVERGED, _failures(report)
    assert world.in_region("RegionTwo", "servers") == []
    assert "far-net" not in world.names("RegionTwo", "networks")
    assert "near-net" in world.names("RegionOne", "networks")


def test_a_region_the_catalog_does_not_list_is_refused_before_anything_is_built(world: RegionWorld) -> None:
    report = world.converge({"region": "RegionNine"})

    assert report.status is StackStatus.INVALID
    assert (
        "OS::Heat::Stack far: context.region_name 'RegionNine' is not a region of cloud "
        f"'{CLOUD_NAME}' (it has RegionOne, RegionTwo)"
    ) in _failures(report)
    assert "near-net" not in world.names("RegionOne", "networks")


def test_moving_a_built_nested_stack_to_another_region_is_refused_with_the_reason(world: RegionWorld) -> None:
    assert world.converge().status is StackStatus.CONVERGED

    report = world.converge({"region": "RegionOne"})

    assert report.status is not StackStatus.CONVERGED
    assert f"its nested stack is built on '{CLOUD_NAME}@RegionTwo'; moving it to '{CLOUD_NAME}'" in _failures(
        report
    )
    assert world.names("RegionTwo", "servers") == ["far-web"]
    assert world.in_region("RegionOne", "servers") == []
