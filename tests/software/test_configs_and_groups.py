"""Configs as Heat builds them, deployment groups, structured deployments, and runs across restarts."""

from __future__ import annotations

import email
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.heat.server_user_data import metadata_of_user_data
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld

MULTIPART = """
heat_template_version: 2018-08-31
resources:
  script:
    type: OS::Heat::SoftwareConfig
    properties: {config: "#!/bin/sh\\necho one"}
  cloud:
    type: OS::Heat::CloudConfig
    properties:
      cloud_config: {packages: [nginx]}
  boot:
    type: OS::Heat::MultipartMime
    properties:
      parts:
        - config: {get_resource: cloud}
        - config: {get_resource: script}
          subtype: x-shellscript
          filename: one.sh
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: SOFTWARE_CONFIG
      user_data: {get_resource: boot}
outputs:
  mime: {value: {get_attr: [boot, config]}}
"""

GROUP = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::StructuredConfig
    properties:
      group: os-apply-config
      config: {motd: {get_input: message}, fixed: 1}
  left:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}
  right:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}
  everywhere:
    type: OS::Heat::StructuredDeploymentGroup
    properties:
      config: {get_resource: config}
      servers: {a: {get_resource: left}, b: {get_resource: right}}
      input_values: {message: hi}
outputs:
  codes: {value: {get_attr: [everywhere, deploy_status_codes]}}
"""

SILENT = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties: {config: "true"}
  server:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      signal_transport: NO_SIGNAL
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url)
    yield world
    world.close()


def test_a_multipart_config_named_in_user_data_is_inlined_with_its_parts(world: SoftwareWorld) -> None:
    world.commit({"boot.yaml": MULTIPART})
    world.submit("boot", "boot.yaml")
    assert world.converge("boot")["boot"].status is StackStatus.CONVERGED
    (server,) = world.live("servers")
    user_data = str(server["_user_data"])
    parts = [
        part.get_payload()
        for part in email.message_from_string(user_data).get_payload()
        if isinstance(part, email.message.Message)
    ]
    assert parts[0] == "#cloud-config\npackages:\n- nginx\n"
    assert parts[1] == "#!/bin/sh\necho one"
    assert metadata_of_user_data(user_data) is not None
    assert world.outputs("boot")["mime"].count("Content-Type: text/") == 2


def test_a_raw_user_data_naming_a_config_gets_the_configs_text(world: SoftwareWorld) -> None:
    raw = MULTIPART.replace("user_data_format: SOFTWARE_CONFIG", "user_data_format: RAW")
    raw = raw.replace("user_data: {get_resource: boot}", "user_data: {get_resource: script}")
    world.commit({"boot.yaml": raw})
    world.submit("boot", "boot.yaml")
    assert world.converge("boot")["boot"].status is StackStatus.CONVERGED
    (server,) = world.live("servers")
    assert server["_user_data"] == "#!/bin/sh\necho one"


def entries_by_server(world: SoftwareWorld) -> dict[str, list[dict[str, Any]]]:
    records = world.records("group")
    return {
        name: world.server_entries(records[name].physical_id)
        for name in ("left", "right")
        if name in records and records[name].physical_id
    }


def test_a_structured_deployment_group_deploys_to_every_server_with_inputs_substituted(
    world: SoftwareWorld,
) -> None:
    world.commit({"group.yaml": GROUP})
    world.submit("group", "group.yaml")
    world.step_until(lambda: [len(entries) for entries in entries_by_server(world).values()] == [1, 1])
    for (entry,) in entries_by_server(world).values():
        assert entry["config"] == {"motd": "hi", "fixed": 1}
        assert entry["group"] == "os-apply-config"
        world.signal_deployment(entry, {"deploy_status_code": 0})
    assert world.converge("group")["group"].status is StackStatus.CONVERGED
    assert world.outputs("group") == {"codes": {"a": 0, "b": 0}}


def test_no_signal_deployments_complete_at_once(world: SoftwareWorld) -> None:
    world.commit({"silent.yaml": SILENT})
    world.submit("silent", "silent.yaml")
    assert world.converge("silent")["silent"].status is StackStatus.CONVERGED
    server = world.records("silent")["server"].physical_id
    (entry,) = world.server_entries(server)
    names = {item["name"] for item in entry["inputs"]}
    assert "deploy_signal_id" not in names and "deploy_config_hash" in names


def test_a_completed_deployment_never_runs_again_after_the_stack_is_taken_over(world: SoftwareWorld) -> None:
    world.commit({"silent.yaml": SILENT.replace("signal_transport: NO_SIGNAL", "name: once")})
    world.submit("silent", "silent.yaml")
    world.step_until(lambda: bool(world.records("silent").get("deployment")))
    server = world.records("silent")["server"].physical_id
    world.step_until(lambda: bool(world.server_entries(server)))
    (entry,) = world.server_entries(server)
    world.signal_deployment(entry, {"deploy_status_code": 0, "deploy_stdout": "ran"})
    assert world.converge("silent")["silent"].status is StackStatus.CONVERGED
    report = world.take_over("silent", "silent.yaml")
    assert report.status is StackStatus.CONVERGED
    assert world.server_entries(server) == [entry]
    assert world.records("silent")["deployment"].attributes["deploy_stdout"] == "ran"


def test_a_deployment_in_progress_is_still_signalled_by_its_url_after_a_takeover(
    world: SoftwareWorld,
) -> None:
    world.commit({"silent.yaml": SILENT.replace("signal_transport: NO_SIGNAL", "name: once")})
    world.submit("silent", "silent.yaml")
    world.step_until(lambda: bool(world.records("silent").get("deployment")))
    server = world.records("silent")["server"].physical_id
    world.step_until(lambda: bool(world.server_entries(server)))
    (entry,) = world.server_entries(server)
    world.clock.sleep(world.store.settings.lease_seconds + 1)
    world.engine = world.start_worker("worker-b")
    world.submit("silent", "silent.yaml")
    world.converge("silent", within=5)
    assert world.server_entries(server) == [entry]
    world.signal_deployment(entry, {"deploy_status_code": 0})
    assert world.converge("silent")["silent"].status is StackStatus.CONVERGED


COMPONENT = """
heat_template_version: 2018-08-31
resources:
  component:
    type: OS::Heat::SoftwareComponent
    properties:
      configs:
        - {actions: [CREATE], config: "echo install", tool: script}
        - {actions: [DELETE], config: "echo clean up", tool: script}
  server:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: component}
      server: {get_resource: server}
      input_values: {version: "1"}
"""


def test_a_software_component_runs_for_the_actions_it_has_a_config_for(world: SoftwareWorld) -> None:
    world.commit({"component.yaml": COMPONENT})
    world.submit("component", "component.yaml")
    world.step_until(lambda: bool(world.records("component").get("deployment")))
    server = world.records("component")["server"].physical_id
    world.step_until(lambda: bool(world.server_entries(server)))
    (entry,) = world.server_entries(server)
    assert entry["group"] == "component"
    assert [item["actions"] for item in entry["config"]["configs"]] == [["CREATE"], ["DELETE"]]
    world.signal_deployment(entry, {"deploy_status_code": 0})
    assert world.converge("component")["component"].status is StackStatus.CONVERGED
    world.commit({"component.yaml": COMPONENT.replace('version: "1"', 'version: "2"')})
    world.submit("component", "component.yaml")
    assert world.converge("component")["component"].status is StackStatus.CONVERGED  # no UPDATE config
    assert world.server_entries(server) == [entry]


def test_a_software_component_with_two_configs_for_one_action_is_refused(world: SoftwareWorld) -> None:
    world.commit({"component.yaml": COMPONENT.replace("actions: [DELETE]", "actions: [CREATE]")})
    world.submit("component", "component.yaml")
    report = world.converge("component")["component"]
    assert report.status is StackStatus.FAILED
    assert "more than one configuration for the action CREATE" in report.failures[0].reason
