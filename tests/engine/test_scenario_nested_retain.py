"""Scenario: `deletion_policy: Retain` on a template resource or a group keeps every cloud resource
under it when it leaves the template, at every level of nesting; nothing under it is deleted."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.engine import Policy, StackStatus
from reconciler.engine.run_spec import Lineage, RunSpec, retained_inputs
from tests.engine.group_templates import NODE, server_names
from tests.engine.world import World

WITH_NESTED = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
  nodes:
    type: OS::Heat::ResourceGroup
    deletion_policy: {group}
    properties:
      count: 2
      resource_def:
        type: node.yaml
        properties: {{index: "%index%", net: {{get_resource: net}}}}
  solo:
    type: node.yaml
    deletion_policy: {solo}
    properties: {{index: solo, net: {{get_resource: net}}}}
"""

WITHOUT_NESTED = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
"""


def _cloud_ids(world: World) -> set[str]:
    return {
        str(item["id"]) for collection in ("servers", "ports", "volumes") for item in world.live(collection)
    }


CASES = [
    ("Retain", "Retain", ["node-0", "node-1", "node-solo"]),
    ("Retain", "Delete", ["node-0", "node-1"]),
    ("Delete", "Retain", ["node-solo"]),
]


@pytest.mark.parametrize(("group", "solo", "servers_left"), CASES)
def test_a_retained_nested_stack_leaves_all_it_holds_in_the_cloud(
    tmp_path: Path, sqlite_url: str, group: str, solo: str, servers_left: list[str]
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": WITH_NESTED.format(group=group, solo=solo), "node.yaml": NODE})
    world.submit("tree", "stack.yaml")
    assert world.converge("tree")["tree"].status is StackStatus.CONVERGED
    policies = {"tree/nodes/0": group, "tree/nodes/1": group, "tree/solo": solo}
    held = {stack: {record.physical_id for record in world.records(stack).values()} for stack in policies}

    world.commit({"stack.yaml": WITHOUT_NESTED}, "the nested stacks leave the template")
    world.submit("tree", "stack.yaml")
    report = world.converge("tree")["tree"]

    assert report.status is StackStatus.CONVERGED, report.failures
    in_cloud = _cloud_ids(world)
    for stack, ids in held.items():
        assert (ids <= in_cloud) if policies[stack] == "Retain" else not (ids & in_cloud), stack
        assert world.records(stack) == {}  # no longer managed either way
    assert server_names(world.live("servers")) == servers_left
    assert set(world.records("tree")) == {"net"}
    retained = [name for name, policy in (("nodes", group), ("solo", solo)) if policy == "Retain"]
    assert report.counts.retained == len(retained)
    assert all(any(line.startswith(f"{name} (tree/{name})") for line in report.kept) for name in retained)
    world.close()


def test_the_removal_that_retains_travels_with_the_nested_generation_to_any_worker() -> None:
    """A nested stack's removal is read from its generation by whichever worker holds its shard."""
    spec = RunSpec(Lineage("tree", (("nodes", {"count": 2}),)), Policy("sim"), is_group=True)

    removal = RunSpec.from_inputs(retained_inputs(spec.to_inputs(resources=2)))

    assert removal is not None and removal.retain_all
    assert RunSpec.from_inputs(spec.to_inputs(resources=2)) == spec
