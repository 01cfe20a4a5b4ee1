"""Scenario: `state: suspended` in reconciler.yaml suspends every server of a stack (group members in
their nested stacks too), `active` resumes them, and a server resumed by hand is suspended again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackReport, StackStatus
from reconciler.engine.repository_apply import apply_repository
from reconciler.templates.file_source import DirectorySource
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0
TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: net}
  web:
    type: OS::Nova::Server
    properties: {name: web, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
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


def config(state: str | None, *, web_name: str = "web") -> dict[str, str]:
    entry = "" if state is None else f"    state: {state}\n"
    return {
        "reconciler.yaml": (
            "defaults: {cloud: sim, observe_interval: 60}\n"
            f"stacks:\n  app:\n    template: stack.yaml\n{entry}"
        ),
        "stack.yaml": TEMPLATE.replace("name: web,", f"name: {web_name},"),
    }


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url, observe_interval=OBSERVE_INTERVAL)
    yield world
    world.close()


def apply(world: World, files: dict[str, str]) -> StackReport:
    commit = world.commit(files)
    reports = apply_repository(world.engine, DirectorySource(world.repo_dir), commit, world.clock.now() + 600)
    return reports["app"]


def server_statuses(world: World) -> dict[str, str]:
    return {item["name"]: item["status"] for item in world.live("servers")}


def test_a_suspended_stack_suspends_every_server_nested_ones_too_and_active_resumes_them(
    world: World,
) -> None:
    assert apply(world, config(None)).status is StackStatus.CONVERGED

    suspended = apply(world, config("suspended"))

    assert suspended.status is StackStatus.SUSPENDED, suspended.failures
    assert server_statuses(world) == {"web": "SUSPENDED", "worker-0": "SUSPENDED", "worker-1": "SUSPENDED"}
    stored = world.store.read_stack("app")
    assert stored is not None and stored.status is StackStatus.SUSPENDED
    assert world.live("networks")[0]["status"] == "ACTIVE"  # what cannot be suspended is left as it is
    assert world.outputs("app")["web_id"] == world.records("app")["web"].physical_id

    resumed = apply(world, config("active"))

    assert resumed.status is StackStatus.CONVERGED, resumed.failures
    assert set(server_statuses(world).values()) == {"ACTIVE"}


def test_a_stack_created_suspended_has_its_servers_suspended_once_built(world: World) -> None:
    report = apply(world, config("suspended"))

    assert report.status is StackStatus.SUSPENDED, report.failures
    assert set(server_statuses(world).values()) == {"SUSPENDED"}


def test_a_server_resumed_by_hand_is_suspended_again_and_is_no_drift_while_suspended(world: World) -> None:
    apply(world, config("suspended"))
    servers = sorted(item["id"] for item in world.live("servers"))
    web = world.records("app")["web"].physical_id
    world.cloud.act("servers", web, "resume", {})

    report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

    assert report.status is StackStatus.SUSPENDED, report.failures
    assert server_statuses(world)["web"] == "SUSPENDED"
    assert sorted(item["id"] for item in world.live("servers")) == servers  # never replaced or made again


def test_a_change_to_a_suspended_stack_is_applied_and_its_servers_stay_suspended(world: World) -> None:
    apply(world, config("suspended"))

    report = apply(world, config("suspended", web_name="web-renamed"))

    assert report.status is StackStatus.SUSPENDED, report.failures
    assert server_statuses(world) == {
        "web-renamed": "SUSPENDED",
        "worker-0": "SUSPENDED",
        "worker-1": "SUSPENDED",
    }
