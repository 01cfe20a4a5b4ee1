"""Scenario: drift behind the engine's back is repaired within one observe interval."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings
from reconciler.engine import StackStatus
from tests.engine.templates import LONE_SERVER_WITH_VOLUME, server_group, servers
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url, observe_interval=OBSERVE_INTERVAL)
    yield world
    world.close()


def converged_with(world: World, template: str) -> None:
    world.commit({"stack.yaml": template})
    world.submit("app", "stack.yaml")
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures


def server_named(world: World, name: str) -> dict[str, object]:
    (server,) = [server for server in world.live("servers") if server["name"] == name]
    return server


def test_a_deleted_server_is_recreated(world: World) -> None:
    converged_with(world, servers(["web"]))
    gone = server_named(world, "web")["id"]
    world.cloud.vanish("servers", str(gone))

    report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert server_named(world, "web")["id"] != gone
    assert world.records("app")["web"].physical_id == server_named(world, "web")["id"]


def test_a_server_gone_to_error_is_replaced(world: World) -> None:
    converged_with(world, servers(["web"]))
    broken = server_named(world, "web")["id"]
    world.cloud.set_status("servers", str(broken), "ERROR")

    report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert [server["id"] for server in world.live("servers")] != [broken]
    assert len(world.live("servers")) == 1 and server_named(world, "web")["status"] == "ACTIVE"


def test_a_vanished_group_member_is_replaced(world: World) -> None:
    converged_with(world, server_group(3))
    member = server_named(world, "member-1")["id"]
    world.cloud.vanish("servers", str(member))

    report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(server["name"] for server in world.live("servers")) == ["member-0", "member-1", "member-2"]
    assert server_named(world, "member-1")["id"] != member
    assert world.outputs("app")["ids"][1] == server_named(world, "member-1")["id"]


def test_a_property_changed_out_of_band_is_put_back(world: World) -> None:
    converged_with(world, servers(["web"]))
    server = server_named(world, "web")["id"]
    world.cloud.change("servers", str(server), {"name": "renamed-by-hand"})

    report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert server_named(world, "web")["id"] == server  # updated in place, not replaced


def test_a_vanished_attached_volume_fails_the_stack_and_the_rest_stays_converged(world: World) -> None:
    """No right action exists: recreating the volume would not bring its data back."""
    converged_with(world, LONE_SERVER_WITH_VOLUME)
    (volume,) = world.live("volumes")
    server = server_named(world, "db")["id"]
    world.cloud.change(
        "volumes", str(volume["id"]), {"status": "error", "attachments": []}
    )  # the backend lost it
    world.cloud.vanish("volumes", str(volume["id"]))

    report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

    assert report.status is StackStatus.FAILED
    assert [failure.resource for failure in report.failures] == ["data"]
    assert "cannot be recreated" in report.failures[0].reason
    assert world.live("volumes") == []  # not silently recreated empty
    assert server_named(world, "db")["id"] == server
    assert world.store.read_stack("app").status is StackStatus.FAILED  # type: ignore[union-attr]


def test_a_volume_in_error_is_reported_and_kept_not_replaced(world: World) -> None:
    """Replacing it would delete the old volume, and the data on it, once the new one is made."""
    converged_with(world, LONE_SERVER_WITH_VOLUME)
    (volume,) = world.live("volumes")
    world.cloud.set_status("volumes", str(volume["id"]), "error_extending")

    report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

    assert report.status is StackStatus.FAILED
    assert [failure.resource for failure in report.failures] == ["data"]
    assert "replacing it would delete the data it holds" in report.failures[0].reason
    assert [item["id"] for item in world.live("volumes")] == [volume["id"]]


def test_outputs_of_a_failed_stack_follow_a_repair(tmp_path: Path, database_url: str) -> None:
    world = World(
        tmp_path, database_url, observe_interval=OBSERVE_INTERVAL, cloud=CloudSettings(quotas={"servers": 1})
    )
    try:
        template = servers(["web", "db"]) + "outputs:\n  web: {value: {get_resource: web}}\n"
        world.commit({"stack.yaml": template})
        world.submit("app", "stack.yaml")
        first = world.converge("app")["app"]
        assert first.status is StackStatus.FAILED  # one server over the quota
        web = server_named(world, "web")["id"]
        assert world.outputs("app") == {"web": web}
        world.cloud.vanish("servers", str(web))

        report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

        assert report.status is StackStatus.FAILED
        assert world.outputs("app") == {"web": server_named(world, "web")["id"]} != {"web": web}
    finally:
        world.close()
