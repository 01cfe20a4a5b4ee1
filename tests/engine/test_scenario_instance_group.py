"""Scenario: Heat's older group (OS::Heat::InstanceGroup of an AWS::AutoScaling::LaunchConfiguration)
converges on the simulated cloud as Nova servers, grows with its Size, and rolls its members when
the launch configuration changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from reconciler.templates.errors import TemplateError
from tests.engine.world import World

INSTANCE_GROUP = """
heat_template_version: 2013-05-23
parameters:
  size: {type: number, default: 2}
  flavor: {type: string, default: m1.small}
resources:
  server_group:
    type: OS::Heat::InstanceGroup
    properties:
      LaunchConfigurationName: {get_resource: server_config}
      AvailabilityZones: []
      Size: {get_param: size}
      Tags: [{Key: role, Value: web}]
  server_config:
    type: AWS::AutoScaling::LaunchConfiguration
    properties:
      ImageId: cirros-0.6.2-x86_64-disk
      InstanceType: {get_param: flavor}
outputs:
  addresses: {value: {get_attr: [server_group, InstanceList]}}
"""


def test_an_instance_group_makes_servers_of_its_launch_configuration_and_follows_its_changes(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": INSTANCE_GROUP})
    world.submit("group", "stack.yaml")

    report = world.converge("group")["group"]

    assert report.status is StackStatus.CONVERGED, report.failures
    servers = world.live("servers")
    assert len(servers) == 2
    assert all(server["metadata"].get("role") == "web" for server in servers)
    addresses = world.outputs("group")["addresses"].split(",")
    assert len(addresses) == 2 and all(address.count(".") == 3 for address in addresses)

    world.submit("group", "stack.yaml", parameters={"size": 3, "flavor": "m1.medium"})
    report = world.converge("group")["group"]

    assert report.status is StackStatus.CONVERGED, report.failures
    flavors = {server["flavor"]["original_name"] for server in world.live("servers")}
    assert len(world.live("servers")) == 3 and flavors == {"m1.medium"}
    world.close()


def test_a_group_naming_no_launch_configuration_of_its_stack_is_invalid(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url)
    template = INSTANCE_GROUP.replace("{get_resource: server_config}", "some-config")
    world.commit({"stack.yaml": template})

    with pytest.raises(TemplateError, match="LaunchConfigurationName must name an AWS::AutoScaling::Launch"):
        world.submit("group", "stack.yaml")
    world.close()
