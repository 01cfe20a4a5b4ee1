"""Scenario: a resource FAILED for a permanent cause is tried again slowly, and at once when asked.

Given a group of three servers on a simulated cloud reached over HTTP by openstacksdk, and one
create answered 403 (a policy refusal: permanent, so the member is FAILED with the cloud's words);
then the stack reports FAILED with the reason and the time of the next try, minutes away, and
nothing is sent meanwhile; when that time comes (or a retry is asked through the database), the
member is created and the stack converges.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.faults import CallFault
from providers.simulated.settings import CloudSettings
from reconciler.engine import StackReport, StackStatus
from tests.openstack.conftest import StartCloud
from tests.openstack.test_engine_scenario import EngineOnOpenStack

GROUP = """
heat_template_version: 2018-08-31
resources:
  nodes:
    type: OS::Heat::ResourceGroup
    properties:
      count: 3
      resource_def:
        type: OS::Nova::Server
        properties:
          name: node-%index%
          image: cirros-0.6.2-x86_64-disk
          flavor: m1.small
outputs:
  ids: {value: {get_attr: [nodes, refs]}}
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str, start_cloud: StartCloud) -> Iterator[EngineOnOpenStack]:
    settings = CloudSettings(time_to_active=2.0)
    sim = start_cloud(settings=settings)
    world = EngineOnOpenStack(tmp_path, sqlite_url, sim, sim.clock)
    yield world
    world.close()


def given_a_member_refused_once(world: EngineOnOpenStack) -> StackReport:
    world.commit(GROUP)
    world.sim.cloud.faults.fail_next(CallFault.FORBIDDEN, operation="create", collection="servers")
    report: StackReport = world.converge()
    assert report.status is StackStatus.FAILED
    assert len(world.live("servers")) == 2
    return report


def test_a_member_refused_once_waits_minutes_with_its_reason_then_is_created(
    world: EngineOnOpenStack,
) -> None:
    report = given_a_member_refused_once(world)

    (failure,) = report.failures
    assert failure.resource == "nodes" and "Policy does not allow" in failure.reason
    assert failure.next_try is not None
    wait = failure.next_try - world.clock.now()
    assert 60 <= wait <= 3_600  # minutes, not the seconds of a transient retry
    assert "next try at" in str(failure)
    (stored,) = world.store.read_stack("app/nodes").reasons  # type: ignore[union-attr]
    assert "Policy does not allow" in stored and "next try at" in stored

    # nothing is made while it waits
    world.pass_time(wait / 2)
    assert world.engine.report("app").status is StackStatus.FAILED
    assert len(world.live("servers")) == 2

    report = world.pass_time(wait)

    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(server["name"] for server in world.live("servers")) == ["node-0", "node-1", "node-2"]
    assert len(world.store.read_outputs("app")["ids"]) == 3


def test_a_retry_asked_through_the_database_is_taken_at_the_next_pass(world: EngineOnOpenStack) -> None:
    """Given the member waiting its slow retry; when `reconciler retry` writes its request (here:
    the store call it makes, for the group's nested stack); then the next passes create it."""
    given_a_member_refused_once(world)

    world.store.request_retry("app/nodes")
    report = world.pass_time(5)

    assert report.status is StackStatus.CONVERGED, report.failures
    assert len(world.live("servers")) == 3
    assert world.store.requested_retries(range(world.store.settings.shard_count)) == []


def test_a_transient_failure_still_retries_within_seconds(world: EngineOnOpenStack) -> None:
    world.commit(GROUP)
    world.sim.cloud.faults.fail_next(CallFault.UNAVAILABLE, operation="create", collection="servers")
    started = world.clock.now()

    report = world.converge()

    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.clock.now() - started < 60


WIRED = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: app-net}
  port:
    type: OS::Neutron::Port
    properties: {name: app-port, network: {get_resource: net}}
"""


def test_a_failed_resource_is_tried_again_at_once_when_what_it_depends_on_moves(
    world: EngineOnOpenStack,
) -> None:
    world.commit(WIRED)
    world.sim.cloud.faults.fail_next(CallFault.FORBIDDEN, operation="create", collection="ports")
    report = world.converge()
    (failure,) = report.failures
    assert report.status is StackStatus.FAILED and failure.resource == "port"
    assert failure.next_try is not None and failure.next_try - world.clock.now() >= 100
    (network,) = [item for item in world.live("networks") if item["name"] == "app-net"]

    # the network vanishes and is made again with a new id: the port's inputs moved
    world.sim.cloud.vanish("networks", network["id"])
    report = world.pass_time(61)

    assert report.status is StackStatus.CONVERGED, report.failures
    (remade,) = [item for item in world.live("networks") if item["name"] == "app-net"]
    (port,) = [item for item in world.live("ports") if item["name"] == "app-port"]
    assert remade["id"] != network["id"] and port["network_id"] == remade["id"]
