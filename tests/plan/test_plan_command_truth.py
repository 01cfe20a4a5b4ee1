"""`reconciler plan` tells what `reconciler apply` then does, and refuses what this cloud cannot build.

Given a repository of one stack on the simulated cloud, the plan's JSON lists every top-level
resource that changes once, with its property changes; its exit status says whether anything would
change; a stack using a type no provider here serves is refused by plan and apply before anything
is built.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from reconciler.cli.main import cli
from tests.plan.cli_repos import OneStackRepository

SERVERS = """heat_template_version: 2018-08-31
parameters:
  name: {type: string, default: web}
  image: {type: string, default: cirros-0.6.2-x86_64-disk}
  secret: {type: string, default: s3cr3t, hidden: true}
resources:
  token:
    type: OS::Heat::RandomString
    properties: {length: 12}
  net:
    type: OS::Neutron::Net
  port:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}}
  server:
    type: OS::Nova::Server
    properties:
      name: {get_param: name}
      image: {get_param: image}
      flavor: m1.small
      networks: [{port: {get_resource: port}}]
      metadata: {token: {get_attr: [token, value]}, secret: {get_param: secret}}
"""


def _stack(result_output: str) -> dict[str, Any]:
    (stack,) = json.loads(result_output)["stacks"]
    plan: dict[str, Any] = stack["plan"]
    return plan


def _names(plan: dict[str, Any], action: str) -> list[str]:
    return [entry["resource"] for entry in plan[action]]


def test_plan_exits_2_before_the_first_apply_and_0_once_applied(tmp_path: Path) -> None:
    repository = OneStackRepository(tmp_path, {"stack.yaml": SERVERS})

    before = repository.plan()
    assert before.exit_code == 2, before.output
    assert sorted(_names(_stack(before.output), "create")) == ["net", "port", "server", "token"]

    assert repository.apply().exit_code == 0
    after = repository.plan()
    assert after.exit_code == 0, after.output
    plan = _stack(after.output)
    assert [plan[action] for action in ("create", "update", "replace", "delete")] == [[], [], [], []]
    assert plan["unchanged"] == 4


def test_an_update_in_place_shows_each_property_old_and_new_with_hidden_values_masked(tmp_path: Path) -> None:
    repository = OneStackRepository(tmp_path, {"stack.yaml": SERVERS})
    assert repository.apply().exit_code == 0
    repository.commit(
        {"stack.yaml": SERVERS.replace("default: web", "default: web-2").replace("s3cr3t", "n3w-s3cr3t")}
    )

    shown = repository.plan()

    assert shown.exit_code == 2, shown.output
    plan = _stack(shown.output)
    (server,) = plan["update"]
    assert server["resource"] == "server" and server["type"] == "OS::Nova::Server"
    assert {"property": "name", "old": "web", "new": "web-2"} in server["changes"]
    assert {"property": "metadata", "old": "******", "new": "******"} in server["changes"]
    assert "s3cr3t" not in shown.output
    assert _names(plan, "create") == _names(plan, "replace") == _names(plan, "delete") == []


def test_what_reads_a_replaced_resource_is_planned_with_the_action_apply_takes(tmp_path: Path) -> None:
    repository = OneStackRepository(tmp_path, {"stack.yaml": SERVERS})
    assert repository.apply().exit_code == 0
    repository.commit({"stack.yaml": SERVERS.replace("length: 12", "length: 16")})

    plan = _stack(repository.plan().output)
    applied = repository.apply()

    assert [(e["resource"], e["because"]) for e in plan["replace"]] == [("token", ["length"])]
    (server,) = plan["update"]  # its metadata takes the new token's value, in place
    assert server["reads"] == ["token"]
    assert {"property": "metadata", "old": "******", "new": "******"} in server["changes"]
    assert "demo: CONVERGED" in applied.output
    assert "(created 0, updated 1, replaced 1, deleted 0, unchanged 2)" in applied.output


def test_a_replaced_random_string_counts_once_as_replaced(tmp_path: Path) -> None:
    template = "heat_template_version: 2018-08-31\nresources:\n  token:\n    type: OS::Heat::RandomString\n"
    repository = OneStackRepository(tmp_path, {"stack.yaml": template})
    assert repository.apply().exit_code == 0
    repository.commit({"stack.yaml": template + "    properties: {length: 40}\n"})

    applied = repository.apply()

    assert applied.exit_code == 0, applied.output
    assert "(created 0, updated 0, replaced 1, deleted 0, unchanged 0)" in applied.output


GROUP = """heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 3}
resources:
  nodes:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: node.yaml
"""

NODE = """heat_template_version: 2018-08-31
resources:
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1}
  value:
    type: OS::Heat::Value
    properties: {value: {get_resource: volume}}
"""


def test_a_group_count_decrease_is_the_deletion_of_its_last_member_never_a_change_of_the_group(
    tmp_path: Path,
) -> None:
    repository = OneStackRepository(tmp_path, {"stack.yaml": GROUP, "node.yaml": NODE})
    assert repository.apply().exit_code == 0
    repository.commit({"stack.yaml": GROUP.replace("default: 3", "default: 2")})

    shown = repository.plan()

    assert shown.exit_code == 2, shown.output
    plan = _stack(shown.output)
    (member,) = plan["delete"]
    assert (member["resource"], member["group"], member["member"]) == ("nodes.2", "nodes", "2")
    assert {(held["resource"], held["action"]) for held in member["holds"]} == {
        ("volume", "delete"),
        ("value", "delete"),
    }
    assert plan["update"] == plan["replace"] == plan["create"] == []
    text = repository.run("plan")
    assert "- nodes.2 [holds: -value, -volume]" in text.output or "- nodes.2 [holds: -volume, -value]" in (
        text.output
    )


UNSERVED = """heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
  segment:
    type: OS::Neutron::Segment
    properties: {network: private, network_type: vlan, physical_network: physnet1}
"""


def test_a_type_heat_knows_but_no_provider_serves_is_valid_yet_refused_before_anything_is_built(
    tmp_path: Path,
) -> None:
    repository = OneStackRepository(tmp_path, {"stack.yaml": UNSERVED})
    validated = CliRunner().invoke(cli, ["validate", str(repository.path / "stack.yaml"), "--format", "json"])
    assert validated.exit_code == 0 and json.loads(validated.output)["valid"] is True

    planned = repository.run("plan")
    applied = repository.apply()

    assert planned.exit_code == 1
    for shown in (planned.output, applied.output):
        assert "stack.yaml:7" in shown
        assert "resource segment: no provider serves OS::Neutron::Segment on cloud 'sim'" in shown
    assert applied.exit_code == 1
    assert "demo: INVALID" in applied.output and "(created 0," in applied.output  # the server neither


def test_a_nested_template_using_an_unserved_type_refuses_the_whole_stack(tmp_path: Path) -> None:
    node = "heat_template_version: 2018-08-31\nresources:\n  box:\n    type: OS::Neutron::Segment\n"
    node += "    properties: {network: private, network_type: flat}\n"
    repository = OneStackRepository(tmp_path, {"stack.yaml": GROUP, "node.yaml": node})

    planned = repository.run("plan")

    assert planned.exit_code == 1
    assert "node.yaml:4: resource nodes.box: no provider serves OS::Neutron::Segment on cloud 'sim'" in (
        planned.output
    )


STRICT = """heat_template_version: 2018-08-31
resources:
  token:
    type: OS::Heat::RandomString
    properties: {length: 8, character_classes: [{class: digits}]}
  label:
    type: OS::Heat::Value
    properties:
      value:
        str_replace_strict:
          template: {get_attr: [token, value]}
          params: {zzz: y}
"""


def test_a_function_failing_on_the_recorded_values_is_a_refusal_naming_file_line_and_resource(
    tmp_path: Path,
) -> None:
    repository = OneStackRepository(tmp_path, {"stack.yaml": STRICT})
    assert repository.apply().exit_code == 1  # the label cannot be made: its value fails

    planned = repository.run("plan")

    assert planned.exit_code == 1
    assert isinstance(planned.exception, SystemExit)  # a refusal, no traceback
    assert "stack.yaml:10: resource label: The following params were not found in the template: zzz" in (
        planned.output
    )


OUT_OF_RANGE = """heat_template_version: 2018-08-31
parameters:
  length: {type: number, default: 0}
resources:
  before:
    type: OS::Heat::RandomString
  token:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: length}
"""


def test_a_value_from_a_parameter_outside_its_range_is_refused_before_anything_is_built(
    tmp_path: Path,
) -> None:
    repository = OneStackRepository(tmp_path, {"stack.yaml": OUT_OF_RANGE})

    planned = repository.run("plan")
    applied = repository.apply()

    message = "Property error: resources.token.properties.length: 0 is out of range (min: 1, max: 512)"
    for result in (planned, applied):
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)  # no traceback
        assert "stack.yaml:10" in result.output and message in result.output
    assert "demo: INVALID" in applied.output and "(created 0," in applied.output
