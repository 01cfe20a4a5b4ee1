"""Scenario: create calls that outlive their deadline and land in the cloud later.

The simulated cloud's create latency (90 s of engine time) is longer than the engine's call deadline
(60 s): every create is abandoned, retried (adopting by marker), and then lands anyway. Whatever
happened in between (nothing, a newer generation, a prune), each resource ends up once in the cloud,
or not at all when it left the template: nothing a late create made is left behind.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings, Latency
from reconciler.engine import StackStatus
from tests.engine.templates import HEADER
from tests.engine.world import TEST_SETTINGS, World

CREATE_LATENCY = 1.5 * TEST_SETTINGS.call_deadline  # every create outlives its call deadline


def lone_server(name: str) -> str:
    return (
        HEADER
        + f"""
resources:
  web:
    type: OS::Nova::Server
    properties: {{name: {name}, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}}
"""
    )


ONLY_A_VALUE = (
    HEADER
    + """
resources:
  label:
    type: OS::Heat::Value
    properties: {value: nothing to build}
"""
)


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    slow_creates = CloudSettings(latency=Latency(per_operation={"create": CREATE_LATENCY}))
    world = World(tmp_path, database_url, cloud=slow_creates, calls_take_engine_time=True)
    yield world
    world.close()


def run_for(world: World, seconds: float) -> None:
    """Step the engine a second of engine time at a time; slow calls land when the clock passes them."""
    for _ in range(int(seconds)):
        world.engine.step()
        world.clock.sleep(1.0)


def servers_in_cloud(world: World) -> list[tuple[str, str]]:
    return sorted((str(server["id"]), str(server["name"])) for server in world.live("servers"))


def test_a_create_that_lands_after_its_deadline_is_adopted_and_its_retry_not_kept(world: World) -> None:
    """Given a create abandoned at its deadline and retried while it still runs; when both land; then
    the first to land is the resource and the other is deleted: one server, the one recorded."""
    world.commit({"stack.yaml": lone_server("web")})
    world.submit("app", "stack.yaml")

    run_for(world, 3 * CREATE_LATENCY)

    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    ((server_id, _),) = servers_in_cloud(world)
    assert world.records("app")["web"].physical_id == server_id


def test_a_late_create_for_inputs_a_newer_generation_changed_is_not_kept(world: World) -> None:
    """Given a create abandoned at its deadline; when a newer generation changes the server's name
    before the retry; then the late server (old name) is deleted, not adopted as the new one."""
    world.commit({"stack.yaml": lone_server("web")})
    world.submit("app", "stack.yaml")
    run_for(world, TEST_SETTINGS.call_deadline / 2)
    world.commit({"stack.yaml": lone_server("web-2")})
    world.submit("app", "stack.yaml")

    run_for(world, 3 * CREATE_LATENCY)

    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    ((server_id, name),) = servers_in_cloud(world)
    assert name == "web-2"
    assert world.records("app")["web"].physical_id == server_id


def test_a_late_create_of_a_resource_pruned_meanwhile_is_deleted(world: World) -> None:
    """Given a create abandoned at its deadline and retried; when the server leaves the template
    while both calls still run; then what they make when they land is deleted."""
    world.commit({"stack.yaml": lone_server("web")})
    world.submit("app", "stack.yaml")
    run_for(world, TEST_SETTINGS.call_deadline + 10)
    world.commit({"stack.yaml": ONLY_A_VALUE})
    world.submit("app", "stack.yaml")

    run_for(world, 3 * CREATE_LATENCY)

    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert servers_in_cloud(world) == []
    assert set(world.records("app")) == {"label"}
