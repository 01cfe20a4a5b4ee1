"""Scenario: how calls leave and come back: a closed engine sends nothing, and large builds are polled."""

from __future__ import annotations

from pathlib import Path

from providers.simulated.settings import CloudSettings
from reconciler.engine import StackStatus
from tests.engine.templates import servers
from tests.engine.world import World


def test_a_closed_engine_sends_nothing_and_keeps_its_intents_for_later(
    tmp_path: Path, database_url: str
) -> None:
    """Given an engine whose call pool has shut down; when a stack is submitted and passes run; then
    no create reaches the cloud, nothing fails, and each intent is kept to be tried again (adopting
    by marker first, as after any create whose outcome is unknown)."""
    world = World(tmp_path, database_url)
    world.commit({"stack.yaml": servers(["web"])})
    networks_before = world.live("networks")
    world.engine.close()

    world.submit("app", "stack.yaml")
    for _ in range(3):
        world.engine.step()

    assert world.live("servers") == [] and world.live("networks") == networks_before
    net = world.records("app")["net"]
    assert (net.status, net.physical_id) == ("CREATE_IN_PROGRESS", None)
    assert net.attempts == 1 and net.next_attempt_at is not None
    world.store.close()


def test_a_hundred_servers_building_at_once_are_all_seen_ready(tmp_path: Path, database_url: str) -> None:
    """Given 100 servers that take 30 s to become ACTIVE; when the stack converges; then every one is
    seen ACTIVE, though each readiness poll observes only those that have waited longest."""
    world = World(tmp_path, database_url, cloud=CloudSettings(time_to_active=30.0))
    names = [f"web{index}" for index in range(100)]
    world.commit({"stack.yaml": servers(names)})
    world.submit("app", "stack.yaml")

    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert report.counts.created == 201  # the network, and a port and a server per name
    records = world.records("app")
    assert {records[name].status for name in names} == {"READY"}
    assert {server["status"] for server in world.live("servers")} == {"ACTIVE"}
    world.close()
