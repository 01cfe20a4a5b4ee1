"""plan_stack on real loaded templates: every resource's action, those reading changing values too,
deletions in order."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reconciler.plan import Action, RecordedResource, plan_stack
from reconciler.templates import DirectorySource, load_stack

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string, default: cirros}
  name: {type: string, default: web}
resources:
  net:
    type: OS::Neutron::Net
  server:
    type: OS::Nova::Server
    properties:
      flavor: m1.small
      name: {get_param: name}
      image: {get_param: image}
      networks: [{network: {get_resource: net}}]
  label:
    type: OS::Heat::Value
    properties: {value: {get_resource: server}}
"""


class Rules:
    """Only `name` and `value` change in place."""

    def replace_reasons(
        self, type_name: str, changed: frozenset[str], desired: Mapping[str, Any]
    ) -> frozenset[str]:
        return changed - {"name", "value"}


RECORDED = {
    "net": RecordedResource("net", "OS::Neutron::Net", "n-1", {}),
    "server": RecordedResource(
        "server",
        "OS::Nova::Server",
        "s-1",
        {"flavor": "m1.small", "name": "web", "image": "cirros", "networks": [{"network": "n-1"}]},
    ),
    "label": RecordedResource("label", "OS::Heat::Value", "l-1", {"value": "s-1"}),
    "old_port": RecordedResource("old_port", "OS::Neutron::Port", "p-1", {"network": "n-1"}),
    "old_fip": RecordedResource("old_fip", "OS::Neutron::FloatingIP", "f-1", {"port_id": "p-1"}),
}


def plan_for(tmp_path: Path, **parameters: Any) -> dict[str, Action]:
    (tmp_path / "stack.yaml").write_text(textwrap.dedent(TEMPLATE))
    definition = load_stack(DirectorySource(tmp_path), "stack.yaml", parameters=parameters)
    plan = plan_stack(definition, RECORDED, Rules())
    return {resource.name: resource.action for resource in plan.resources}


def test_nothing_changed_but_what_left_the_template(tmp_path: Path) -> None:
    assert plan_for(tmp_path) == {
        "net": Action.UNCHANGED,
        "server": Action.UNCHANGED,
        "label": Action.UNCHANGED,
        "old_fip": Action.DELETE,
        "old_port": Action.DELETE,
    }


def test_a_retained_resource_leaving_the_template_is_planned_as_retained(tmp_path: Path) -> None:
    (tmp_path / "stack.yaml").write_text(textwrap.dedent(TEMPLATE))
    recorded = {
        **RECORDED,
        "data": RecordedResource("data", "OS::Cinder::Volume", "v-1", {"size": 1}, deletion_policy="Retain"),
    }
    plan = plan_stack(load_stack(DirectorySource(tmp_path), "stack.yaml"), recorded, Rules()).by_name()
    assert plan["data"].action is Action.RETAIN
    assert plan["old_port"].action is Action.DELETE


def test_deletions_come_in_reverse_dependency_order(tmp_path: Path) -> None:
    (tmp_path / "stack.yaml").write_text(textwrap.dedent(TEMPLATE))
    plan = plan_stack(load_stack(DirectorySource(tmp_path), "stack.yaml"), RECORDED, Rules())
    assert plan.deletions == (("old_fip",), ("old_port",))
    assert (
        plan_stack(
            load_stack(DirectorySource(tmp_path), "stack.yaml"), RECORDED, Rules(), prune=False
        ).deletions
        == ()
    )


def test_an_in_place_change_is_an_update(tmp_path: Path) -> None:
    assert plan_for(tmp_path, name="web-2")["server"] is Action.UPDATE


def test_what_reads_a_replaced_resource_gets_the_action_its_new_value_brings(tmp_path: Path) -> None:
    (tmp_path / "stack.yaml").write_text(textwrap.dedent(TEMPLATE))
    definition = load_stack(DirectorySource(tmp_path), "stack.yaml", parameters={"image": "fedora"})
    plan = plan_stack(definition, RECORDED, Rules()).by_name()
    assert plan["server"].action is Action.REPLACE and plan["server"].replace_reasons == {"image"}
    assert plan["label"].action is Action.UPDATE and plan["label"].waiting_on == {"server"}
    assert plan["label"].changed == {"value"}


def test_what_reads_a_replaced_resource_through_a_property_that_replaces_is_replaced(
    tmp_path: Path,
) -> None:
    (tmp_path / "stack.yaml").write_text(textwrap.dedent(TEMPLATE))
    definition = load_stack(DirectorySource(tmp_path), "stack.yaml")
    recorded = {**RECORDED, "net": RecordedResource("net", "OS::Neutron::Net", "n-1", failed=True)}
    plan = plan_stack(definition, recorded, Rules()).by_name()
    assert plan["net"].action is Action.REPLACE
    assert plan["server"].action is Action.REPLACE and plan["server"].replace_reasons == {"networks"}
    assert plan["label"].action is Action.UPDATE
