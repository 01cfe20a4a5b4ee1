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

import random
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.settings import CloudSettings
from reconciler.daemon.clouds import CloudRoot
from reconciler.engine import (
    DesiredGeneration,
    Engine,
    EngineSettings,
    Policy,
    SoleWorkerLeases,
    StackReport,
    StackStatus,
)
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from state.store import Store, open_store
from tests.engine.world import scenario_repo
from tests.openstack.conftest import CLOUD_NAME, CloudUnderTest, StartCloud
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

SETTINGS = EngineSettings(pool_size=4, readiness_poll=1.0, call_deadline=60.0, ready_deadline=300.0)


class RegionWorld:
    """A git repository, a database and an engine whose cloud is the OpenStack provider on the served
    two-region cloud; `restart` makes the engine anew on the same database."""

    def __init__(self, root: Path, database_url: str, sim: CloudUnderTest, clock: SteppedClock) -> None:
        self.sim = sim
        self.clock = clock
        self.repo_dir = root / "repo"
        self.repo_dir.mkdir()
        self.repo = scenario_repo(self.repo_dir)
        (self.repo_dir / "stack.yaml").write_text(textwrap.dedent(PARENT).lstrip(), encoding="utf-8")
        (self.repo_dir / "far.yaml").write_text(textwrap.dedent(FAR).lstrip(), encoding="utf-8")
        self.repo.git.add(A=True)
        self.repo.index.commit("regions")
        self.store: Store = open_store(database_url, clock=clock)
        self.engine = self._engine()

    def _engine(self) -> Engine:
        leases = SoleWorkerLeases(self.store, "worker-a", self.clock)
        for shard in range(self.store.settings.shard_count):
            leases.want(shard)
        return Engine(
            self.store, CloudRoot(self.clock), self.clock, "worker-a", leases=leases, sleeper=self.clock,
            random=random.Random(5), settings=SETTINGS,
        )  # fmt: skip

    def restart(self) -> None:
        self.engine.close()
        self.engine = self._engine()

    def converge(self, **parameters: Any) -> StackReport:
        definition = load_stack(DirectorySource(self.repo_dir), "stack.yaml", parameters=parameters)
        policy = Policy(CLOUD_NAME, True, True, 60.0)
        self.engine.submit("app", DesiredGeneration(self.repo.head.commit.hexsha, policy, definition))
        return self.engine.converge(["app"], self.clock.now() + 3_600)["app"]

    def pass_time(self, seconds: float) -> StackReport:
        until = self.clock.now() + seconds
        while self.clock.now() < until:
            self.engine.step()
            self.clock.sleep(min(1.0, until - self.clock.now()))
        return self.engine.converge(["app"], self.clock.now() + 3_600)["app"]

    def region(self, name: str) -> SimulatedCloud:
        return self.sim.cloud.in_region(name)

    def live(self, region: str, collection: str) -> list[dict[str, Any]]:
        cloud = self.region(region)
        cloud.count(collection)
        return [dict(item) for item in cloud.world.inventory(collection)]

    def names(self, region: str, collection: str) -> list[str]:
        return sorted(str(item.get("name")) for item in self.live(region, collection))

    def close(self) -> None:
        self.engine.close()
        self.store.close()


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
    assert world.live("RegionOne", "servers") == []
    assert "far-net" not in world.names("RegionOne", "networks")
    assert "near-net" in world.names("RegionOne", "networks")
    assert "near-net" not in world.names("RegionTwo", "networks")
    assert str(world.store.read_outputs("app")["far_address"]).startswith("10.2.0.")

    # update in place, in RegionTwo
    (server,) = world.live("RegionTwo", "servers")
    report = world.converge(server_name="far-web-2")
    assert report.status is StackStatus.CONVERGED, _failures(report)
    assert [(s["id"], s["name"]) for s in world.live("RegionTwo", "servers")] == [(server["id"], "far-web-2")]

    # drift repaired in RegionTwo, by an engine started anew on the same database
    world.region("RegionTwo").vanish("servers", server["id"])
    world.restart()
    world.converge(server_name="far-web-2")  # what the daemon does on start: the tracked commit again
    report = world.pass_time(120)
    assert report.status is StackStatus.CONVERGED, _failures(report)
    (remade,) = world.live("RegionTwo", "servers")
    assert remade["id"] != server["id"] and remade["name"] == "far-web-2"
    assert world.live("RegionOne", "servers") == []

    # the nested stack leaves the template: RegionTwo is emptied of it
    report = world.converge(server_name="far-web-2", with_far=False)
    assert report.status is StackStatus.CONVERGED, _failures(report)
    assert world.live("RegionTwo", "servers") == []
    assert "far-net" not in world.names("RegionTwo", "networks")
    assert "near-net" in world.names("RegionOne", "networks")


def test_a_region_the_catalog_does_not_list_is_refused_before_anything_is_built(world: RegionWorld) -> None:
    report = world.converge(region="RegionNine")

    assert report.status is StackStatus.INVALID
    assert (
        "OS::Heat::Stack far: context.region_name 'RegionNine' is not a region of cloud "
        f"'{CLOUD_NAME}' (it has RegionOne, RegionTwo)"
    ) in _failures(report)
    assert "near-net" not in world.names("RegionOne", "networks")


def test_moving_a_built_nested_stack_to_another_region_is_refused_with_the_reason(world: RegionWorld) -> None:
    assert world.converge().status is StackStatus.CONVERGED

    report = world.converge(region="RegionOne")

    assert report.status is not StackStatus.CONVERGED
    assert f"its nested stack is built on '{CLOUD_NAME}@RegionTwo'; moving it to '{CLOUD_NAME}'" in _failures(
        report
    )
    assert world.names("RegionTwo", "servers") == ["far-web"]
    assert world.live("RegionOne", "servers") == []
