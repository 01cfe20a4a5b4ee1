"""Suspending and resuming servers through the real openstacksdk against the simulated Nova over HTTP:
the provider's calls, Nova's 409, and the engine keeping a stack's declared `state`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.interface import LiveStatus, Retryable
from providers.simulated.settings import CloudSettings
from reconciler.engine import Policy, StackStatus
from tests.openstack.conftest import CLOUD_NAME, CloudUnderTest, StartCloud
from tests.openstack.scenario import FLAVOR, IMAGE, marker
from tests.openstack.test_engine_scenario import EngineOnOpenStack
from timekeeping.testing import SteppedClock

SERVER = "OS::Nova::Server"


def active_server(sim: CloudUnderTest) -> str:
    created = sim.provider.create(SERVER, {"flavor": FLAVOR, "image": IMAGE}, marker("web"))
    sim.clock.advance(60)
    return created.physical_id


def test_suspend_is_novas_action_and_the_server_is_seen_suspended(sim: CloudUnderTest) -> None:
    server = active_server(sim)
    sim.log.clear()

    suspended = sim.provider.suspend(SERVER, server)

    assert suspended.suspended and suspended.status is LiveStatus.READY
    assert sim.log.count("POST", f"/servers/{server}/action") == 1
    assert sim.cloud.get("servers", server)["status"] == "SUSPENDED"
    assert sim.provider.observe(SERVER, [server])[server].suspended


def test_suspend_and_resume_are_idempotent_and_resume_runs_it_again(sim: CloudUnderTest) -> None:
    server = active_server(sim)
    sim.provider.suspend(SERVER, server)
    sim.log.clear()

    again = sim.provider.suspend(SERVER, server)

    assert again.suspended and sim.log.count("POST") == 0  # already there: nothing sent
    resumed = sim.provider.resume(SERVER, server)
    assert not resumed.suspended and sim.cloud.get("servers", server)["status"] == "ACTIVE"


def test_nova_refuses_to_suspend_a_stopped_server_with_409(sim: CloudUnderTest) -> None:
    server = active_server(sim)
    sim.cloud.act("servers", server, "os-stop", {})

    with pytest.raises(Retryable) as refused:
        sim.provider.suspend(SERVER, server)

    assert refused.value.conflict
    assert "HTTP 409" in str(refused.value) and "vm_state shutoff" in str(refused.value)


def test_only_servers_can_be_suspended(sim: CloudUnderTest) -> None:
    assert sim.provider.can_suspend(SERVER)
    assert not sim.provider.can_suspend("OS::Neutron::Net")


TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  web:
    type: OS::Nova::Server
    properties: {name: web, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str, start_cloud: StartCloud) -> Iterator[EngineOnOpenStack]:
    clock = SteppedClock()
    world = EngineOnOpenStack(
        tmp_path, sqlite_url, start_cloud(settings=CloudSettings(time_to_active=5.0), clock=clock), clock
    )
    yield world
    world.close()


def test_the_engine_keeps_a_suspended_stacks_server_suspended_over_http(world: EngineOnOpenStack) -> None:
    world.commit(TEMPLATE)
    assert world.converge().status is StackStatus.CONVERGED
    world.policy = Policy(CLOUD_NAME, True, True, 60.0, state="suspended")

    report = world.converge()

    assert report.status is StackStatus.SUSPENDED, report.failures
    (server,) = world.live("servers")
    assert server["status"] == "SUSPENDED"
    world.sim.cloud.act("servers", server["id"], "resume", {})  # resumed by hand
    report = world.pass_time(61)
    assert report.status is StackStatus.SUSPENDED, report.failures
    assert [item["status"] for item in world.live("servers")] == ["SUSPENDED"]

    world.policy = Policy(CLOUD_NAME, True, True, 60.0, state="active")
    report = world.converge()
    assert report.status is StackStatus.CONVERGED, report.failures
    assert [(item["id"], item["status"]) for item in world.live("servers")] == [(server["id"], "ACTIVE")]
