"""Scenario: templates the public corpus holds that once failed for reasons of ours, not theirs.

Each case is a small template of the shape a corpus template has; given the simulated cloud, the
stack converges (or fails with the reason Heat would give), never hangs or fails silently.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.engine import DesiredGeneration, StackStatus
from reconciler.templates.errors import TemplateError
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from tests.engine.world import TEST_SETTINGS, World

OLD_NETWORK_NAME = """
heat_template_version: 2013-05-23
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network_id: {get_resource: net}
      cidr: 10.0.0.0/24
  port:
    type: OS::Neutron::Port
    properties:
      network_id: {get_resource: net}
      fixed_ips: [{subnet_id: {get_resource: subnet}}]
outputs:
  port_network: {value: {get_attr: [port, network_id]}}
  net: {value: {get_resource: net}}
"""


def test_network_id_the_older_name_of_network_reaches_the_cloud(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": OLD_NETWORK_NAME})
    world.submit("old-names", "stack.yaml")

    report = world.converge("old-names")["old-names"]

    assert report.status is StackStatus.CONVERGED, report.failures
    outputs = world.outputs("old-names")
    assert outputs["port_network"] == outputs["net"]
    world.close()


SERVER_NETWORK_UUID = """
heat_template_version: 2013-05-23
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.0.0.0/24}
  server:
    type: OS::Nova::Server
    depends_on: subnet
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      networks: [{uuid: {get_resource: net}}]
outputs:
  networks: {value: {get_attr: [server, networks]}}
"""


def test_a_server_networks_entry_naming_its_network_by_uuid_reaches_the_cloud(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": SERVER_NETWORK_UUID})
    world.submit("old-names", "stack.yaml")

    report = world.converge("old-names")["old-names"]

    assert report.status is StackStatus.CONVERGED, report.failures
    (server,) = world.live("servers")
    (port,) = [port for port in world.live("ports") if port["device_id"] == server["id"]]
    assert port["network_id"] == world.live("networks")[-1]["id"]
    world.close()


NESTED_RANDOM = """
heat_template_version: 2015-10-15
parameters:
  lengths: {type: comma_delimited_list}
  index: {type: number}
resources:
  random:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: [lengths, {get_param: index}]}
"""

RANDOM_GROUP = """
heat_template_version: 2015-10-15
parameters:
  lengths: {type: comma_delimited_list}
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 1
      resource_def:
        type: random.yaml
        properties: {lengths: {get_param: lengths}, index: "%index%"}
"""


@pytest.mark.parametrize("length", ["1000", "0", "-3", "ten"])
def test_a_random_string_of_an_invalid_length_fails_with_the_reason(
    tmp_path: Path, sqlite_url: str, length: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": RANDOM_GROUP, "random.yaml": NESTED_RANDOM})
    world.submit("random", "stack.yaml", {"lengths": length})

    report = world.converge("random", within=600)["random"]

    assert report.status is StackStatus.FAILED
    assert "length" in " ".join(failure.reason for failure in report.failures)
    world.close()


KEY_PAIR = """
heat_template_version: 2018-08-31
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: ops}
"""


def test_a_key_pair_whose_name_is_taken_fails_at_once_with_the_reason(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.cloud.create("keypairs", {"name": "ops"})
    world.commit({"stack.yaml": KEY_PAIR})
    started = world.clock.now()
    world.submit("keys", "stack.yaml")

    report = world.converge("keys")["keys"]

    assert report.status is StackStatus.FAILED
    assert "a key pair named 'ops' already exists" in report.failures[0].reason
    assert world.clock.now() - started < TEST_SETTINGS.call_deadline
    world.close()


SECURITY_GROUP_NAME = """
heat_template_version: 2018-08-31
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties: {name: web}
outputs:
  name: {value: {get_attr: [sg, name]}}
"""


def test_a_security_group_name_attribute_is_refused_as_heat_refuses_it(
    tmp_path: Path, sqlite_url: str
) -> None:
    """Heat's security group declares no attribute but `show`: `name` is refused before anything is made."""
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": SECURITY_GROUP_NAME})

    with pytest.raises(TemplateError, match=r"The Referenced Attribute \(sg name\) is incorrect"):
        world.submit("groups", "stack.yaml")

    assert world.live("security_groups") == []
    world.close()


MEMBER_WITH_STACK_ID = """
heat_template_version: 2016-10-14
resources:
  tagged:
    type: OS::Heat::Value
    properties:
      value: {list_join: ["-", [member, {get_param: "OS::stack_id"}, {get_param: "OS::stack_name"}]]}
outputs:
  label: {value: {get_attr: [tagged, value]}}
"""

GROUP_OF_STACK_IDS = """
heat_template_version: 2016-10-14
resources:
  asg:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 2
      max_size: 3
      resource:
        type: OS::Heat::Value
        properties:
          value: {get_param: "OS::stack_id"}
  members:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 2
      resource: {type: member.yaml}
outputs:
  ids: {value: {get_attr: [asg, outputs_list, value]}}
  labels: {value: {get_attr: [members, outputs_list, label]}}
"""


def test_os_stack_id_inside_an_autoscaling_group_member_is_the_member_stack_id(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP_OF_STACK_IDS, "member.yaml": MEMBER_WITH_STACK_ID})
    world.submit("scaled", "stack.yaml")

    report = world.converge("scaled")["scaled"]

    assert report.status is StackStatus.CONVERGED, report.failures
    outputs = world.outputs("scaled")
    assert len(outputs["ids"]) == 2 and all(outputs["ids"])
    assert all(label.startswith("member-") and len(label) > len("member--") for label in outputs["labels"])
    world.close()


def test_a_stack_loaded_without_its_name_fails_with_the_parameter_named(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP_OF_STACK_IDS, "member.yaml": MEMBER_WITH_STACK_ID})
    nameless = load_stack(DirectorySource(world.repo_dir), "stack.yaml")
    world.engine.submit("nameless", DesiredGeneration(world.commits[-1], world.policy, nameless, None))

    report = world.converge("nameless")["nameless"]

    assert report.status is StackStatus.FAILED
    assert "The Parameter (OS::stack_id) has no value" in report.failures[0].reason
    world.close()
