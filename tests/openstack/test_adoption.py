"""Adopting resources made outside any stack, through the OpenStack provider over HTTP (the real
openstacksdk against the simulated cloud): looked up by id and type, taken without a create, then
managed (updated in place, deleted when the stack goes); bad adopt data refused with nothing made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings
from reconciler.engine import DesiredGeneration, StackReport, StackStatus
from reconciler.templates.adopt_data import parse_adoption
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from tests.openstack.conftest import StartCloud
from tests.openstack.scenario import FLAVOR, IMAGE, marker
from tests.openstack.test_engine_scenario import EngineOnOpenStack
from timekeeping.testing import SteppedClock

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  web_name: {type: string, default: web}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: app-net}
  web:
    type: OS::Nova::Server
    properties: {name: {get_param: web_name}, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str, start_cloud: StartCloud) -> Iterator[EngineOnOpenStack]:
    clock = SteppedClock()
    world = EngineOnOpenStack(
        tmp_path, sqlite_url, start_cloud(settings=CloudSettings(time_to_active=5.0), clock=clock), clock
    )
    yield world
    world.close()


def adopt(world: EngineOnOpenStack, resources: dict[str, object], **parameters: str) -> StackReport:
    definition = load_stack(DirectorySource(world.repo_dir), "stack.yaml", parameters=parameters)
    adoption = parse_adoption("adopt.yaml", resources)
    commit = world.repo.head.commit.hexsha
    world.engine.submit("app", DesiredGeneration(commit, world.policy, definition, adoption))
    return world.engine.converge(["app"], world.clock.now() + 3_600)["app"]


def made_outside(world: EngineOnOpenStack) -> tuple[str, str]:
    provider = world.sim.provider
    net = provider.create("OS::Neutron::Net", {"name": "app-net"}, marker("net", stack="elsewhere"))
    web = provider.create(
        "OS::Nova::Server", {"name": "web", "image": IMAGE, "flavor": FLAVOR}, marker("web")
    )
    return net.physical_id, web.physical_id  # the server still building: adopted, then waited for


def test_existing_resources_are_adopted_without_a_create_then_managed(world: EngineOnOpenStack) -> None:
    net, web = made_outside(world)
    world.commit(TEMPLATE)
    world.sim.log.clear()

    report = adopt(world, {"net": net, "web": web})

    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.sim.log.count("POST", "/servers") == 0 and world.sim.log.count("POST", "/networks") == 0
    assert [server["id"] for server in world.live("servers")] == [web]
    renamed = world.converge({"web_name": "web-2"})
    assert renamed.status is StackStatus.CONVERGED, renamed.failures
    assert [(server["id"], server["name"]) for server in world.live("servers")] == [(web, "web-2")]


def test_an_id_of_the_wrong_type_is_refused_and_nothing_is_made(world: EngineOnOpenStack) -> None:
    net, web = made_outside(world)
    world.commit(TEMPLATE)

    report = adopt(world, {"net": web, "web": net})

    assert report.status is StackStatus.INVALID
    reasons = sorted(failure.reason for failure in report.failures)
    assert reasons == [
        f"adopt.yaml: resource net: no OS::Neutron::Net {web} exists in the cloud",
        f"adopt.yaml: resource web: no OS::Nova::Server {net} exists in the cloud",
    ]
    assert [server["id"] for server in world.live("servers")] == [web]
