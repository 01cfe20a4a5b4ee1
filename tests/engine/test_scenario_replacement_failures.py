"""Scenario: a replacement whose create the cloud refuses; the old copy goes first only when in the way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.faults import CallFault
from reconciler.engine import StackStatus
from tests.engine.templates import servers
from tests.engine.world import World

LONE_SERVER = """
heat_template_version: 2018-08-31
parameters:
  user_data: {type: string, default: ""}
resources:
  web:
    type: OS::Nova::Server
    properties:
      name: web
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data: {get_param: user_data}
"""


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url)
    yield world
    world.close()


def replacement_attempts(world: World, name: str) -> int:
    """The failed attempts the store records for the newest (not retired) record of `name`."""
    current = [
        record
        for record in world.store.read_records("app")
        if record.logical_name == name and record.status != "RETIRED"
    ]
    return max((record.attempts for record in current), default=0)


def test_a_replacement_refused_by_server_errors_keeps_the_old_copy_until_the_new_one_exists(
    world: World,
) -> None:
    """Given a converged server; when its replacement's create fails with 500s three times; then the
    working old server is never deleted first: it stays until the new one exists, then goes."""
    world.commit({"stack.yaml": LONE_SERVER})
    world.submit("app", "stack.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    (old,) = world.live("servers")

    world.cloud.faults.fail_next(CallFault.SERVER_ERROR, 3, operation="create", collection="servers")
    world.submit("app", "stack.yaml", {"user_data": "#!/bin/sh"})
    world.step_until(lambda: replacement_attempts(world, "web") >= 3)
    world.engine.step()
    world.engine.wait_for_calls()

    assert [server["id"] for server in world.live("servers")] == [old["id"]]
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    (new,) = world.live("servers")
    assert new["id"] != old["id"]


def test_a_replacement_refused_because_the_old_copy_holds_its_port_deletes_the_old_copy_first(
    world: World,
) -> None:
    """Given a server bound to a port; when it is replaced (new user_data) and the new server's create
    conflicts (409: the port is still in use by the old one); then the old one goes first, and the
    stack converges to the new server on the same port."""
    world.commit({"stack.yaml": servers(["web"])})
    world.submit("app", "stack.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    (old,) = world.live("servers")
    (port,) = world.live("ports")

    world.commit({"stack.yaml": servers(["web"], user_data="#!/bin/sh")})
    world.submit("app", "stack.yaml")
    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert report.counts.replaced == 1
    (new,) = world.live("servers")
    assert new["id"] != old["id"]
    (bound,) = world.live("ports")
    assert bound["id"] == port["id"] and bound["device_id"] == new["id"]
