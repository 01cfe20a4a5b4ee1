"""Scenario: a create back while its resource still builds is recorded with its next change.

The intent record (with the marker) is written before every create; the physical id the create
returns is written when the resource is READY, or `building_write_delay` later at the latest, or
when the worker closes. A worker that dies in between loses only that id: the next owner finds the
resource again by its marker.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from providers.simulated.settings import CloudSettings
from reconciler.engine import StackStatus
from tests.engine.world import TEST_SETTINGS, World

SERVER = """heat_template_version: 2018-08-31
resources:
  web:
    type: OS::Nova::Server
    properties: {name: web, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
"""

SETTINGS = replace(TEST_SETTINGS, building_write_delay=5.0, readiness_poll=1.0)


def _building(tmp_path: Path, database_url: str) -> World:
    """A world whose one server was created and is building (30 s to ACTIVE), its create handled."""
    world = World(tmp_path, database_url, cloud=CloudSettings(time_to_active=30.0), settings=SETTINGS)
    world.commit({"stack.yaml": SERVER})
    world.submit("app", "stack.yaml")
    world.step_until(lambda: len(world.live("servers")) == 1)
    world.engine.wait_for_calls()
    world.engine.step()  # the create's answer handled: the server is building
    return world


def test_the_physical_id_of_a_building_server_is_written_by_the_write_delay(
    tmp_path: Path, database_url: str
) -> None:
    world = _building(tmp_path, database_url)
    (server,) = world.live("servers")
    assert server["status"] == "BUILD"
    record = world.records("app")["web"]
    assert record.physical_id is None and record.status == "CREATE_IN_PROGRESS"  # the intent only

    world.pass_time(SETTINGS.building_write_delay + 1.0)

    record = world.records("app")["web"]
    assert record.physical_id == server["id"] and record.status == "CREATE_IN_PROGRESS"
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.records("app")["web"].status == "READY"
    world.close()


def test_a_worker_closing_writes_what_it_held_back(tmp_path: Path, database_url: str) -> None:
    world = _building(tmp_path, database_url)
    (server,) = world.live("servers")

    world.engine.close()

    assert world.records("app")["web"].physical_id == server["id"]
    world.clock.release()
    world.store.close()


def test_a_worker_killed_before_writing_a_building_servers_id_is_taken_over_without_duplicates(
    tmp_path: Path, database_url: str
) -> None:
    """Given worker A that handled the create of a building server and died before writing its id;
    when worker B takes the stack over; then B finds the server by its marker: no second server."""
    world = _building(tmp_path, database_url)
    worker_a = world.engine
    assert world.records("app")["web"].physical_id is None

    report = world.take_over("app", "stack.yaml")  # A is gone: no pass, no renewal

    assert report.status is StackStatus.CONVERGED, report.failures
    (server,) = world.live("servers")
    assert world.records("app")["web"].physical_id == server["id"]
    records_after_takeover = world.records("app")
    worker_a.close()  # A's held-back write is fenced off: its lease is gone
    assert world.records("app") == records_after_takeover
    world.close()
