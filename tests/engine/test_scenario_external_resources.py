"""Scenario: a resource with `external_id` is the existing one, taken as it is and never made, changed
or deleted by convergence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackReport, StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0


def template(external: str | None, *, with_data: bool = True) -> str:
    body = "heat_template_version: 2018-08-31\nresources:\n"
    body += "  net:\n    type: OS::Neutron::Net\n    properties: {name: net}\n"
    if with_data:
        body += f"  data:\n    type: OS::Cinder::Volume\n    external_id: {external}\n"
        body += "    properties: {size: 9}\n"
        body += "outputs:\n  data_id: {value: {get_resource: data}}\n"
    return body


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url, observe_interval=OBSERVE_INTERVAL)
    yield world
    world.close()


def existing_volume(world: World, name: str) -> str:
    return str(world.cloud.create("volumes", {"name": name, "size": 1})["id"])


def converge(world: World, text: str) -> StackReport:
    world.commit({"stack.yaml": text})
    world.submit("app", "stack.yaml")
    return world.converge("app", within=600.0)["app"]


def test_the_existing_resource_is_taken_and_nothing_is_created(world: World) -> None:
    volume = existing_volume(world, "kept-outside")

    report = converge(world, template(volume))

    assert report.status is StackStatus.CONVERGED, report.failures
    assert [item["id"] for item in world.live("volumes")] == [volume]
    assert world.live("volumes")[0]["size"] == 1  # its properties are not applied
    assert world.records("app")["data"].physical_id == volume
    assert world.outputs("app") == {"data_id": volume}


def test_leaving_the_template_or_the_stack_leaves_it_in_the_cloud(world: World) -> None:
    volume = existing_volume(world, "kept-outside")
    converge(world, template(volume))

    report = converge(world, template(None, with_data=False))

    assert report.status is StackStatus.CONVERGED, report.failures
    assert [item["id"] for item in world.live("volumes")] == [volume]
    converge(world, template(volume))
    world.step_until(lambda: world.engine.remove_nested("app"))
    assert [item["id"] for item in world.live("volumes")] == [volume]


def test_changing_it_takes_the_newly_named_resource_and_keeps_the_first(world: World) -> None:
    first, second = existing_volume(world, "first"), existing_volume(world, "second")
    converge(world, template(first))

    report = converge(world, template(second))

    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.records("app")["data"].physical_id == second
    assert world.outputs("app") == {"data_id": second}
    assert sorted(item["id"] for item in world.live("volumes")) == sorted([first, second])


def test_an_id_that_names_nothing_fails_the_resource_and_creates_nothing(world: World) -> None:
    report = converge(world, template("3f6b2a7e-0000-4000-8000-000000000000"))

    assert report.status is StackStatus.FAILED
    (failure,) = report.failures
    assert "does not exist: external_id must name an existing resource" in str(failure)
    assert world.live("volumes") == []


def test_an_external_resource_that_vanishes_is_reported_not_recreated(world: World) -> None:
    volume = existing_volume(world, "kept-outside")
    converge(world, template(volume))
    world.cloud.vanish("volumes", volume)

    report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

    assert report.status is StackStatus.FAILED
    assert any("it is not ours to repair" in str(failure) for failure in report.failures)
    assert world.live("volumes") == []
