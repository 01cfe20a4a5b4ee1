"""Scenario: a deployment group through its stack's suspend and resume, as a single deployment.

Given a SoftwareDeploymentGroup to two servers listing SUSPEND and RESUME, when the stack is
declared suspended, then each member publishes a SUSPEND run, the servers stay ACTIVE until every
member's run is signalled, and the stack is then SUSPENDED with both servers suspended; when the
stack is declared active again, the servers are resumed and each member runs its RESUME config.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.engine import Policy, StackStatus
from tests.software.software_world import SoftwareWorld
from tests.software.test_deployment_lifecycle import action_of

GROUP = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties: {group: script, config: "#!/bin/sh\\necho $deploy_action"}
  first:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}
  second:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}
  deployments:
    type: OS::Heat::SoftwareDeploymentGroup
    properties:
      config: {get_resource: config}
      servers: {first: {get_resource: first}, second: {get_resource: second}}
      actions: [CREATE, SUSPEND, RESUME]
"""
SERVERS = ("first", "second")


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, database_url, observe_interval=10.0)
    world.commit({"app.yaml": GROUP})
    world.submit("app", "app.yaml")
    world.step_until(lambda: all(len(entries(world, server)) == 1 for server in SERVERS))
    signal_all(world, "CREATE")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    yield world
    world.close()


def entries(world: SoftwareWorld, server: str) -> list[dict[str, Any]]:
    record = world.records("app").get(server)
    if record is None or record.physical_id is None:
        return []
    return world.server_entries(record.physical_id)


def actions(world: SoftwareWorld) -> set[str]:
    return {action_of(entries(world, server)[0]) for server in SERVERS}


def signal_all(world: SoftwareWorld, action: str) -> None:
    for server in SERVERS:
        assert (
            world.signal_deployment(
                entries(world, server)[0], {"deploy_status_code": 0, "deploy_stdout": action}
            )
            == 200
        )


def statuses(world: SoftwareWorld) -> set[str]:
    ids = {world.records("app")[server].physical_id for server in SERVERS}
    return {str(server["status"]) for server in world.live("servers") if server["id"] in ids}


def test_each_member_runs_its_suspend_config_before_the_servers_are_suspended_and_resume_after(
    world: SoftwareWorld,
) -> None:
    world.policy = Policy("sim", True, True, 10.0, state="suspended")
    world.submit("app", "app.yaml")
    world.step_until(lambda: actions(world) == {"SUSPEND"})
    world.pass_time(15)
    assert statuses(world) == {"ACTIVE"}  # the SUSPEND runs have not been signalled yet
    signal_all(world, "SUSPEND")
    assert world.converge("app")["app"].status is StackStatus.SUSPENDED
    assert statuses(world) == {"SUSPENDED"}

    world.policy = Policy("sim", True, True, 10.0)
    world.submit("app", "app.yaml")
    world.step_until(lambda: actions(world) == {"RESUME"})
    assert statuses(world) == {"ACTIVE"}
    signal_all(world, "RESUME")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
