"""Scenario: native Heat types on the injected clock, and a group of template resources with outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.engine.world import World

WAITING = """
heat_template_version: 2018-08-31
resources:
  slow:
    type: OS::Heat::TestResource
    properties: {value: ready, wait_secs: 30}
  after:
    type: OS::Heat::Value
    properties: {value: {get_attr: [slow, output]}}
  secret:
    type: OS::Heat::RandomString
    properties: {length: 12}
outputs:
  after: {value: {get_attr: [after, value]}}
  secret: {value: {get_attr: [secret, value]}}
"""

FAILING = """
heat_template_version: 2018-08-31
resources:
  broken:
    type: OS::Heat::TestResource
    properties: {fail: true}
  fine:
    type: OS::Heat::None
"""

NODE = """
heat_template_version: 2018-08-31
parameters:
  index: {type: string}
resources:
  value:
    type: OS::Heat::Value
    properties: {value: {list_join: ["-", [node, {get_param: index}]]}}
outputs:
  label: {value: {get_attr: [value, value]}}
"""

GROUP = """
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 3}
resources:
  nodes:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: node.yaml
        properties: {index: "%index%"}
outputs:
  labels: {value: {get_attr: [nodes, label]}}
"""


def test_a_waiting_test_resource_holds_its_dependents_until_the_clock_says(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": WAITING})
    started = world.clock.now()
    world.submit("native", "stack.yaml")

    report = world.converge("native")["native"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.clock.now() - started >= 30
    outputs = world.outputs("native")
    assert outputs["after"] == "ready" and len(outputs["secret"]) == 12
    world.close()


def test_a_failing_test_resource_fails_the_stack_and_the_rest_converges(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": FAILING})
    world.submit("native", "stack.yaml")

    report = world.converge("native")["native"]

    assert report.status is StackStatus.FAILED
    assert [failure.resource for failure in report.failures] == ["broken"]
    assert "Test Resource failed" in report.failures[0].reason
    assert world.records("native")["fine"].status == "READY"
    world.close()


def test_a_group_of_template_resources_is_a_tree_of_stacks_and_shrinks_by_pruning(
    tmp_path: Path, database_url: str
) -> None:
    world = World(tmp_path, database_url)
    world.commit({"stack.yaml": GROUP, "node.yaml": NODE})
    world.submit("tree", "stack.yaml")
    report = world.converge("tree")["tree"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.outputs("tree") == {"labels": ["node-0", "node-1", "node-2"]}
    assert set(world.records("tree/nodes")) == {"0", "1", "2"}
    assert world.outputs("tree/nodes/2") == {"label": "node-2"}

    world.submit("tree", "stack.yaml", {"count": 1})
    report = world.converge("tree")["tree"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.outputs("tree") == {"labels": ["node-0"]}
    assert set(world.records("tree/nodes")) == {"0"}
    assert world.records("tree/nodes/2") == {}
    world.close()


def paced_group(policy: str) -> str:
    return f"""
heat_template_version: 2018-08-31
resources:
  slow_group:
    type: OS::Heat::ResourceGroup
    update_policy: {policy}
    properties:
      count: 6
      resource_def:
        type: OS::Heat::TestResource
        properties: {{value: member, wait_secs: 10}}
"""


def test_batch_create_paces_a_group(tmp_path: Path, sqlite_url: str) -> None:
    """Six members that take 10 s each: all at once 10 s; two at a time with 5 s pauses, over 40 s."""
    world = World(tmp_path, sqlite_url)
    world.commit(
        {
            "free.yaml": paced_group("{}"),
            "paced.yaml": paced_group("{batch_create: {max_batch_size: 2, pause_time: 5}}"),
        }
    )
    started = world.clock.now()
    world.submit("free", "free.yaml")
    assert world.converge("free")["free"].status is StackStatus.CONVERGED
    free = world.clock.now() - started

    started = world.clock.now()
    world.submit("paced", "paced.yaml")
    assert world.converge("paced")["paced"].status is StackStatus.CONVERGED
    paced = world.clock.now() - started

    assert free < 15 and paced >= 3 * 10 + 2 * 5
    world.close()


@pytest.mark.parametrize(
    ("policy", "words"),
    [
        (
            "{batch_create: {max_batch_size: -1}}",
            "update_policy.batch_create.max_batch_size must be at least 1",
        ),
        (
            "{rolling_update: {max_batch_size: two}}",
            "update_policy.rolling_update.max_batch_size must be an integer",
        ),
        ("{batch_create: {pause_time: [5]}}", "update_policy.batch_create.pause_time must be a number"),
        ("{batch_create: [2]}", "update_policy.batch_create must be a map"),
    ],
)
def test_an_invalid_update_policy_fails_the_group_naming_the_property(
    tmp_path: Path, sqlite_url: str, policy: str, words: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"paced.yaml": paced_group(policy)})
    world.submit("paced", "paced.yaml")

    report = world.converge("paced")["paced"]

    assert report.status is StackStatus.FAILED
    (failure,) = report.failures
    assert failure.resource == "slow_group"
    assert "slow_group" in failure.reason and words in failure.reason
    assert world.records("paced/slow_group") == {}  # no member was started
    world.close()


PACED_BY_AN_ATTRIBUTE = """
heat_template_version: 2018-08-31
resources:
  pace:
    type: OS::Heat::TestResource
    properties: {value: 2, wait_secs: 3}
  slow_group:
    type: OS::Heat::ResourceGroup
    update_policy:
      batch_create: {max_batch_size: {get_attr: [pace, output]}, pause_time: 5}
    properties:
      count: 6
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: member, wait_secs: 10}
"""


def test_an_update_policy_reading_a_value_not_known_yet_waits_for_it(tmp_path: Path, sqlite_url: str) -> None:
    """Given a group whose batch size is another resource's attribute; then the group waits for that
    value and is paced by it (two at a time), instead of starting unpaced."""
    world = World(tmp_path, sqlite_url)
    world.commit({"paced.yaml": PACED_BY_AN_ATTRIBUTE})
    started = world.clock.now()
    world.submit("paced", "paced.yaml")

    report = world.converge("paced")["paced"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.clock.now() - started >= 3 + 3 * 10 + 2 * 5
    world.close()
