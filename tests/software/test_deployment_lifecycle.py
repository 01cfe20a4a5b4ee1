"""Scenario: a software deployment through its server's lifecycle: the stack suspended and resumed
(SUSPEND and RESUME runs, the server suspended only after its SUSPEND run), and the stack removed
(the DELETE run happens while the server still runs, and the server goes after it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.engine import Policy, StackStatus
from tests.software.software_world import SoftwareWorld

LIFECYCLE = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties: {group: script, config: "#!/bin/sh\\necho $deploy_action"}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: SOFTWARE_CONFIG
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      actions: [CREATE, SUSPEND, RESUME, DELETE]
"""
NOTHING = """
heat_template_version: 2018-08-31
resources:
  placeholder: {type: OS::Heat::None}
"""


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, database_url, observe_interval=10.0)
    world.commit({"app.yaml": LIFECYCLE, "nothing.yaml": NOTHING})
    world.submit("app", "app.yaml")
    world.step_until(lambda: len(entries(world)) == 1)
    world.signal_deployment(entries(world)[0], {"deploy_status_code": 0, "deploy_stdout": "CREATE"})
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    yield world
    world.close()


def server_id(world: SoftwareWorld) -> str:
    return str(world.records("app")["server"].physical_id)


def entries(world: SoftwareWorld) -> list[dict[str, Any]]:
    server = world.records("app").get("server")
    if server is None or server.physical_id is None:
        return []
    return world.server_entries(server.physical_id)


def action_of(entry: dict[str, Any]) -> str:
    return str(next(item["value"] for item in entry["inputs"] if item["name"] == "deploy_action"))


def server_status(world: SoftwareWorld) -> str | None:
    found = [server for server in world.live("servers") if server["id"] == server_id(world)]
    return str(found[0]["status"]) if found else None


def test_suspend_runs_the_suspend_config_before_the_server_is_suspended_and_resume_runs_after(
    world: SoftwareWorld,
) -> None:
    world.policy = Policy("sim", True, True, 10.0, state="suspended")
    world.submit("app", "app.yaml")
    world.step_until(lambda: action_of(entries(world)[0]) == "SUSPEND")
    world.pass_time(15)
    assert server_status(world) == "ACTIVE"  # its SUSPEND config has not run yet
    world.signal_deployment(entries(world)[0], {"deploy_status_code": 0, "deploy_stdout": "SUSPEND"})
    assert world.converge("app")["app"].status is StackStatus.SUSPENDED
    assert server_status(world) == "SUSPENDED"

    world.policy = Policy("sim", True, True, 10.0)
    world.submit("app", "app.yaml")
    world.step_until(lambda: action_of(entries(world)[0]) == "RESUME")
    assert server_status(world) == "ACTIVE"
    world.signal_deployment(entries(world)[0], {"deploy_status_code": 0, "deploy_stdout": "RESUME"})
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    world.pass_time(15, "app")  # an observation reads the outputs its signal brought
    assert world.records("app")["deployment"].attributes["deploy_stdout"] == "RESUME"


def test_the_delete_config_runs_before_its_server_goes(world: SoftwareWorld) -> None:
    server = server_id(world)
    world.submit("app", "nothing.yaml")  # server and deployment leave the template together
    world.step_until(lambda: action_of(world.server_entries(server)[0]) == "DELETE")
    assert world.converge("app", within=20)["app"].status is StackStatus.PROGRESSING
    assert server in {item["id"] for item in world.live("servers")}  # still there to run it
    world.signal_deployment(world.server_entries(server)[0], {"deploy_status_code": 0})
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    assert world.live("servers") == []
