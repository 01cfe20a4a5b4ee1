"""Scenario: Heat's deletion policies decide what leaving management does to a resource.

`Retain` leaves the resource in the cloud (pruned, replaced or with its whole stack) and the report
says so; `Snapshot` makes a Cinder backup before the volume is deleted; `Delete` deletes. The
policy is the one the resource was last converged with, so a worker that never saw the template
naming it still honours it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackReport, StackStatus
from tests.engine.world import World

HEADER = "heat_template_version: 2018-08-31\nresources:\n"


def volume(name: str, policy: str | None = None, *, zone: str = "nova", size: int = 1) -> str:
    line = f"    deletion_policy: {policy}\n" if policy else ""
    return (
        f"  {name}:\n    type: OS::Cinder::Volume\n{line}"
        f"    properties: {{name: {name}, size: {size}, availability_zone: {zone}}}\n"
    )


NET = "  net:\n    type: OS::Neutron::Net\n    properties: {name: net}\n"


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url)
    yield world
    world.close()


def converge(world: World, template: str) -> StackReport:
    world.commit({"stack.yaml": template})
    world.submit("app", "stack.yaml")
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    return report


def volume_named(world: World, name: str) -> list[dict[str, object]]:
    return [item for item in world.live("volumes") if item["name"] == name]


def test_a_retained_volume_removed_from_the_template_stays_in_the_cloud(world: World) -> None:
    converge(world, HEADER + volume("data", "Retain") + volume("scratch"))
    (kept,) = volume_named(world, "data")

    report = converge(world, HEADER + NET)

    assert [item["id"] for item in volume_named(world, "data")] == [kept["id"]]
    assert volume_named(world, "scratch") == []
    assert "data" not in world.records("app")
    assert report.counts.retained == 1 and report.counts.deleted == 1
    assert report.kept == (f"data ({kept['id']}): retained: left in the cloud, no longer managed",)


def test_a_retained_volume_is_kept_when_it_is_replaced(world: World) -> None:
    converge(world, HEADER + volume("data", "Retain", zone="nova"))
    (old,) = volume_named(world, "data")

    converge(world, HEADER + volume("data", "Retain", zone="other"))

    zones = sorted(str(item["availability_zone"]) for item in volume_named(world, "data"))
    assert zones == ["nova", "other"]
    assert world.records("app")["data"].physical_id != old["id"]


def test_removing_the_stack_keeps_its_retained_volume_and_deletes_the_rest(world: World) -> None:
    converge(world, HEADER + volume("data", "Retain") + NET)
    (kept,) = volume_named(world, "data")

    world.step_until(lambda: world.engine.remove_nested("app"))

    assert [item["id"] for item in volume_named(world, "data")] == [kept["id"]]
    assert [item for item in world.live("networks") if item["name"] == "net"] == []
    assert world.records("app") == {}


def test_a_policy_changed_to_retain_is_the_one_removal_follows(world: World) -> None:
    converge(world, HEADER + volume("data"))
    converge(world, HEADER + volume("data", "retain"))  # lower case, as newer templates may write it
    assert world.records("app")["data"].deletion_policy == "Retain"

    converge(world, HEADER + NET)

    assert len(volume_named(world, "data")) == 1


def test_a_worker_that_never_saw_the_template_still_retains(world: World) -> None:
    converge(world, HEADER + volume("data", "Retain") + NET)
    world.commit({"stack.yaml": HEADER + NET})

    report = world.take_over("app", "stack.yaml")

    assert report.status is StackStatus.CONVERGED, report.failures
    assert len(volume_named(world, "data")) == 1


def test_a_snapshot_volume_is_backed_up_before_it_is_deleted(world: World) -> None:
    converge(world, HEADER + volume("data", "Snapshot", size=3))
    (gone,) = volume_named(world, "data")

    report = converge(world, HEADER + NET)

    assert volume_named(world, "data") == []
    (backup,) = world.live("backups")
    assert (backup["volume_id"], backup["size"], backup["status"]) == (gone["id"], 3, "available")
    assert report.kept == (f"data ({gone['id']}): snapshot {backup['id']} made before it was deleted",)


def test_snapshot_of_a_type_that_cannot_be_copied_keeps_it_and_says_why(world: World) -> None:
    template = HEADER + "  net:\n    type: OS::Neutron::Net\n    deletion_policy: Snapshot\n"
    converge(world, template + "    properties: {name: net}\n")

    world.commit({"stack.yaml": HEADER + volume("other")})
    world.submit("app", "stack.yaml")
    report = world.converge("app", within=120.0)["app"]

    assert len([item for item in world.live("networks") if item["name"] == "net"]) == 1
    assert any('"Snapshot" deletion policy not supported' in str(f) for f in report.failures)


def test_an_unknown_deletion_policy_fails_the_resource(world: World) -> None:
    world.commit(
        {
            "stack.yaml": HEADER
            + "  data:\n    type: OS::Cinder::Volume\n    deletion_policy: {get_param: policy}\n"
            + "    properties: {size: 1}\n",
        }
    )
    text = (world.repo_dir / "stack.yaml").read_text()
    world.commit(
        {"stack.yaml": text.replace("resources:", "parameters:\n  policy: {type: string}\nresources:")}
    )
    world.submit("app", "stack.yaml", {"policy": "Keep"})

    report = world.converge("app", within=120.0)["app"]

    assert report.status is StackStatus.FAILED
    assert [(failure.resource, failure.reason) for failure in report.failures] == [
        ("data", 'Invalid deletion policy "Keep"')
    ]
    assert world.live("volumes") == []
