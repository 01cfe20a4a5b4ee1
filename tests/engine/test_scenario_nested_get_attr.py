"""Scenario: `get_attr` on nested stacks and group members, converged on the simulated cloud."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.group_templates import NODE
from tests.engine.world import World

STACK = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
  nodes:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: node.yaml
        properties: {index: "%index%", net: {get_resource: net}}
  solo:
    type: node.yaml
    properties: {index: solo, net: {get_resource: net}}
  inline:
    type: OS::Heat::Stack
    properties:
      template: |
        heat_template_version: 2018-08-31
        resources:
          greeting: {type: OS::Heat::Value, properties: {value: hello}}
        outputs:
          x: {value: {get_attr: [greeting, value]}}
outputs:
  inline_x: {value: {get_attr: [inline, outputs, x]}}
  inline_outputs: {value: {get_attr: [inline, outputs]}}
  member: {value: {get_attr: [nodes, resource.1]}}
  member_label: {value: {get_attr: [nodes, resource.1.label]}}
  member_label_by_path: {value: {get_attr: [nodes, resource.1, label]}}
  labels: {value: {get_attr: [nodes, attributes, label]}}
  solo: {value: {get_resource: solo}}
  solo_label: {value: {get_attr: [solo, label]}}
"""


def test_nested_stack_outputs_and_members_read_as_heat_reads_them(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": STACK, "node.yaml": NODE})
    world.submit("tree", "stack.yaml")

    report = world.converge("tree")["tree"]

    assert report.status is StackStatus.CONVERGED, report.failures
    outputs = world.outputs("tree")
    server_1 = world.records("tree/nodes/1")["server"].physical_id
    assert outputs["inline_x"] == "hello"
    assert outputs["inline_outputs"] == {"x": "hello"}
    assert outputs["member"] == server_1  # the member's own reference: its OS::stack_id output
    assert outputs["member_label"] == outputs["member_label_by_path"] == "node-1"
    assert outputs["labels"] == {"0": "node-0", "1": "node-1"}
    assert outputs["solo"] == world.records("tree/solo")["server"].physical_id
    assert outputs["solo_label"] == "node-solo"
    world.close()
