"""Scenario: a server booted with SOFTWARE_CONFIG, a config deployed to it, and its agent's signals."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

import pytest

from providers.heat.software_records import Deployment
from reconciler.daemon.software_records import StoredSoftware
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hello}
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: greeting}]
      outputs: [{name: result}]
      config: |
        #!/bin/sh
        echo "$greeting" > $heat_outputs_path.result
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
      input_values: {greeting: {get_param: greeting}}
outputs:
  result: {value: {get_attr: [deployment, result]}}
  stdout: {value: {get_attr: [deployment, deploy_stdout]}}
"""


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, database_url)
    world.commit({"app.yaml": TEMPLATE})
    yield world
    world.close()


def deployed_entry(world: SoftwareWorld) -> dict[str, object]:
    world.submit("app", "app.yaml")
    world.step_until(lambda: bool(world.records("app").get("deployment")) and bool(entries(world)))
    (entry,) = entries(world)
    return entry


def entries(world: SoftwareWorld) -> list[dict[str, object]]:
    server = world.records("app").get("server")
    if server is None or server.physical_id is None:
        return []
    return world.server_entries(server.physical_id)


def test_the_deployment_lists_heats_derived_inputs_and_waits_for_its_signal(world: SoftwareWorld) -> None:
    entry = deployed_entry(world)
    inputs = {item["name"]: item["value"] for item in entry["inputs"]}  # type: ignore[attr-defined]
    server = world.records("app")["server"].physical_id
    assert inputs["greeting"] == "hello"
    assert inputs["deploy_server_id"] == server
    assert inputs["deploy_action"] == "CREATE"
    assert inputs["deploy_resource_name"] == "deployment"
    assert inputs["deploy_stack_id"].startswith("app/")
    assert inputs["deploy_signal_transport"] == "TEMP_URL_SIGNAL"
    assert inputs["deploy_signal_verb"] == "PUT"
    assert inputs["deploy_signal_id"].startswith(f"{world.agent_url}/v1/signal/")
    assert len(inputs["deploy_config_hash"]) == 64
    assert entry["group"] == "script"
    assert world.converge("app", within=30)["app"].status is StackStatus.PROGRESSING


def test_a_signal_with_status_zero_completes_the_deployment_and_its_outputs_become_attributes(
    world: SoftwareWorld,
) -> None:
    entry = deployed_entry(world)
    world.signal_deployment(
        entry, {"deploy_stdout": "done", "deploy_stderr": "", "deploy_status_code": 0, "result": "hello"}
    )
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    assert world.outputs("app") == {"result": "hello", "stdout": "done"}


def test_a_deployment_long_unsignalled_is_done_at_once_when_its_signal_comes(world: SoftwareWorld) -> None:
    entry = deployed_entry(world)
    world.pass_time(60.0)  # its script runs long: nothing to find, its polls slow to the signal pace
    assert world.converge("app", within=0.0)["app"].status is StackStatus.PROGRESSING

    world.signal_deployment(entry, {"deploy_stdout": "done", "deploy_status_code": 0, "result": "hi"})

    # the agent API rings the engine: observed at the next pass, not at the next slow poll
    assert world.converge("app", within=world.settings.readiness_poll)["app"].status is StackStatus.CONVERGED


def test_a_non_zero_status_fails_the_deployment_with_its_stderr_in_the_reason(world: SoftwareWorld) -> None:
    entry = deployed_entry(world)
    world.signal_deployment(
        entry, {"deploy_stdout": "", "deploy_stderr": "disk full", "deploy_status_code": 1}
    )
    report = world.converge("app")["app"]
    assert report.status is StackStatus.FAILED
    (failure,) = report.failures
    assert "non-zero status code: 1" in failure.reason
    assert "disk full" in failure.reason
    assert world.records("app")["deployment"].attributes["deploy_status_code"] == 1


def test_an_unchanged_hash_never_runs_again_and_a_changed_input_runs_as_update(
    world: SoftwareWorld,
) -> None:
    entry = deployed_entry(world)
    world.signal_deployment(entry, {"deploy_stdout": "done", "deploy_status_code": 0, "result": "hello"})
    world.converge("app")
    world.submit("app", "app.yaml")  # a restart or an unrelated commit submits the same inputs again
    world.converge("app")
    assert entries(world) == [entry]
    world.submit("app", "app.yaml", {"greeting": "bonjour"})
    world.step_until(lambda: entries(world)[0]["id"] != entry["id"])
    (updated,) = entries(world)
    inputs = {item["name"]: item["value"] for item in updated["inputs"]}  # type: ignore[attr-defined]
    assert (inputs["deploy_action"], inputs["greeting"]) == ("UPDATE", "bonjour")
    world.signal_deployment(updated, {"deploy_status_code": 0, "result": "bonjour"})
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    assert world.outputs("app")["result"] == "bonjour"


CLEANUP = """
heat_template_version: 2018-08-31
resources:
  cleanup:
    type: OS::Heat::SoftwareConfig
    properties: {group: script, config: "#!/bin/sh\\necho deregistered"}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: SOFTWARE_CONFIG
  deregister:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: cleanup}
      server: {get_resource: server}
      input_values: {node: one}
      actions: [DELETE]
"""
SERVER_ONLY = """
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: SOFTWARE_CONFIG
"""


def test_a_deployment_listing_delete_runs_its_config_before_it_goes(world: SoftwareWorld) -> None:
    world.commit({"cleanup.yaml": CLEANUP, "server.yaml": SERVER_ONLY})
    world.submit("cleanup", "cleanup.yaml")
    assert world.converge("cleanup")["cleanup"].status is StackStatus.CONVERGED
    server = world.records("cleanup")["server"].physical_id
    assert world.server_entries(server) == []  # nothing to run at CREATE
    world.submit("cleanup", "server.yaml")  # the deployment leaves the template
    world.step_until(lambda: bool(world.server_entries(server)))
    (entry,) = world.server_entries(server)
    inputs = {item["name"]: item["value"] for item in entry["inputs"]}
    assert (inputs["deploy_action"], inputs["node"]) == ("DELETE", "one")
    assert world.converge("cleanup", within=20)["cleanup"].status is StackStatus.PROGRESSING
    assert "deregister" in world.records("cleanup")
    world.signal_deployment(entry, {"deploy_status_code": 0, "deploy_stdout": "deregistered"})
    assert world.converge("cleanup")["cleanup"].status is StackStatus.CONVERGED
    assert "deregister" not in world.records("cleanup")
    assert world.server_entries(server) == []


THREE_DEPLOYMENTS = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties: {group: script, config: "#!/bin/sh\\ntrue\\n"}
  server:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}
  d0:
    type: OS::Heat::SoftwareDeployment
    properties: {config: {get_resource: config}, server: {get_resource: server}}
  d1:
    type: OS::Heat::SoftwareDeployment
    properties: {config: {get_resource: config}, server: {get_resource: server}}
  d2:
    type: OS::Heat::SoftwareDeployment
    properties: {config: {get_resource: config}, server: {get_resource: server}}
"""


def resource_of(entry: dict[str, object]) -> object:
    inputs = {item["name"]: item["value"] for item in entry["inputs"]}  # type: ignore[attr-defined]
    return inputs["deploy_resource_name"]


def test_a_signal_has_only_its_own_deployment_observed_not_every_one_waiting(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = SoftwareWorld(tmp_path, database_url)
    try:
        world.commit({"app.yaml": THREE_DEPLOYMENTS})
        world.submit("app", "app.yaml")
        world.step_until(lambda: len(entries(world)) == 3)
        world.pass_time(60.0)  # long unsignalled: their polls slowed to the signal pace
        by_id = {record.physical_id: name for name, record in world.records("app").items()}
        observed: list[list[str]] = []
        deployments = StoredSoftware.deployments

        def spied(self: StoredSoftware, ids: Collection[str]) -> Mapping[str, Deployment]:
            observed.append(sorted(by_id.get(physical_id, physical_id) for physical_id in ids))
            return deployments(self, ids)

        monkeypatch.setattr(StoredSoftware, "deployments", spied)
        (entry,) = [entry for entry in entries(world) if resource_of(entry) == "d1"]

        world.signal_deployment(entry, {"deploy_stdout": "done", "deploy_status_code": 0})
        world.step_until(lambda: world.records("app")["d1"].status == "READY", passes=3)

        assert observed[0] == ["d1"]  # the ring named what waits for the signal: it alone was read
        assert {name: world.records("app")[name].status for name in ("d0", "d2")} == {
            "d0": "CREATE_IN_PROGRESS",
            "d2": "CREATE_IN_PROGRESS",
        }
    finally:
        world.close()
