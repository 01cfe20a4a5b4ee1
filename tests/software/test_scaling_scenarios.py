"""Scenario: an AutoScalingGroup moved by its ScalingPolicies' signals, POSTed over real HTTP.

Given a stack whose group git bounds (min 1, max 4, desired 2) and two policies, when an alarm
POSTs Aodh's body to a policy's `alarm_url`, then the group's size follows within the bounds, its
`current_size` and `refs` follow without a commit, and the stack's report names the scaling. The
size is the running system's: a restart or a repaired drift keeps it; a commit changing the bounds
wins.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.plan_notes import StoredRecords
from reconciler.daemon.recorded_rows import recorded_for_plan
from reconciler.engine import StackStatus
from reconciler.plan import Action, plan_stack
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from tests.software.software_world import SoftwareWorld, converged_world
from tests.software.test_agent_api import announced_body

GROUP = """
heat_template_version: 2018-08-31
parameters:
  desired: {type: number, default: 2}
  max: {type: number, default: 4}
resources:
  web_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: {get_param: max}
      desired_capacity: {get_param: desired}
      resource:
        type: OS::Nova::Server
        properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
  scale_up:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: {get_resource: web_group}
      scaling_adjustment: 1
  scale_down:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: {get_resource: web_group}
      scaling_adjustment: -1
      cooldown: 60
outputs:
  size: {value: {get_attr: [web_group, current_size]}}
  refs: {value: {get_attr: [web_group, refs]}}
  up: {value: {get_attr: [scale_up, alarm_url]}}
  up_signal: {value: {get_attr: [scale_up, signal_url]}}
  down: {value: {get_attr: [scale_down, alarm_url]}}
"""
ALARM = {
    "alarm_name": "cpu_high",
    "alarm_id": "8b2c5a9e-0a4c-4d8e-9b1a-3f1f8e6d2c10",
    "severity": "low",
    "previous": "ok",
    "current": "alarm",
    "reason": "Transition to alarm due to 1 samples outside threshold, most recent: 93.2",
    "reason_data": {"type": "threshold", "disposition": "outside", "count": 1, "most_recent": 93.2},
}


def post(url: str, body: Any = ALARM, headers: dict[str, str] | None = None, raw: bytes | None = None) -> int:
    data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
    request = urllib.request.Request(
        url, data=data, method="POST", headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[SoftwareWorld]:
    with converged_world(tmp_path, database_url, GROUP) as world:
        yield world


def size(world: SoftwareWorld) -> int:
    return int(world.outputs("web")["size"])


def settle(world: SoftwareWorld, expected: int) -> None:
    world.step_until(lambda: size(world) == expected and world.engine.report("web").settled)


def test_an_alarm_grows_the_group_and_its_attributes_follow(world: SoftwareWorld) -> None:
    assert size(world) == 2
    assert post(world.outputs("web")["up"]) == 200
    settle(world, 3)
    outputs = world.outputs("web")
    assert len(outputs["refs"]) == 3 and len(set(outputs["refs"])) == 3
    assert len(world.live("servers")) == 3
    report = world.engine.report("web")
    assert report.status is StackStatus.CONVERGED
    assert report.scalings == ("scaled web_group 2 -> 3 by scale_up",)


def test_signal_url_takes_a_post_without_a_body(world: SoftwareWorld) -> None:
    assert post(world.outputs("web")["up_signal"], body=None) == 200
    settle(world, 3)


def test_a_state_other_than_alarm_changes_nothing(world: SoftwareWorld) -> None:
    assert post(world.outputs("web")["up"], {**ALARM, "previous": "alarm", "current": "ok"}) == 200
    world.pass_time(5, "web")
    assert size(world) == 2 and world.engine.report("web").scalings == ()


def test_the_group_stays_within_its_bounds(world: SoftwareWorld) -> None:
    for expected in (3, 4):
        assert post(world.outputs("web")["up"], {**ALARM, "reason": f"to {expected}"}) == 200
        settle(world, expected)
    assert post(world.outputs("web")["up"], {**ALARM, "reason": "beyond"}) == 200
    world.pass_time(5, "web")
    assert size(world) == 4
    assert world.engine.report("web").scalings[-1] == "scaled web_group 3 -> 4 by scale_up"


def test_a_cooldown_refuses_scalings_until_it_ends(world: SoftwareWorld) -> None:
    down = world.outputs("web")["down"]
    assert post(down, {**ALARM, "reason": "first"}) == 200
    settle(world, 1)
    world.pass_time(2, "web")
    assert post(world.outputs("web")["up"], {**ALARM, "reason": "during the cooldown"}) == 200
    world.pass_time(5, "web")
    assert size(world) == 1
    world.pass_time(60, "web")
    assert post(world.outputs("web")["up"], {**ALARM, "reason": "after it"}) == 200
    settle(world, 2)


def test_a_repeated_signal_scales_once(world: SoftwareWorld) -> None:
    headers = {"X-Openstack-Request-Id": "req-6f1c2e8a-5b3d-4d7e-9a0b-1c2d3e4f5a6b"}
    for _ in range(3):
        assert post(world.outputs("web")["up"], headers=headers) == 200
    settle(world, 3)
    assert post(world.outputs("web")["up"], headers=headers) == 200  # a late retry of the same request
    world.pass_time(5, "web")
    assert size(world) == 3


def test_the_size_survives_a_takeover_and_a_repaired_drift(world: SoftwareWorld) -> None:
    assert post(world.outputs("web")["up"]) == 200
    settle(world, 3)
    assert world.take_over("web", "web.yaml").status is StackStatus.CONVERGED
    assert size(world) == 3
    victim = world.live("servers")[0]["id"]
    world.cloud.vanish("servers", str(victim))
    world.pass_time(180, "web")
    servers = world.live("servers")
    assert len(servers) == 3 and victim not in {server["id"] for server in servers}
    assert size(world) == 3


def test_a_commit_changing_the_bounds_wins(world: SoftwareWorld) -> None:
    assert post(world.outputs("web")["up"]) == 200
    settle(world, 3)
    world.submit("web", "web.yaml", {"desired": 1, "max": 3})
    world.converge("web")
    assert size(world) == 1
    world.submit("web", "web.yaml", {"desired": 2, "max": 4})  # the old bounds again: git's size
    world.converge("web")
    assert size(world) == 2


def test_bad_requests_to_a_policy_url(world: SoftwareWorld) -> None:
    up = world.outputs("web")["up"]
    assert post(up + "x") == 404
    assert post(up, raw=b"not json") == 400
    assert announced_body(up, (1 << 20) + 1, "") == 413
    world.commit({"web.yaml": GROUP.replace("  scale_up:", "  gone:").replace("[scale_up,", "[gone,")})
    world.submit("web", "web.yaml")
    world.converge("web")
    assert post(up) == 404  # its token went with it


AWS_POLICY = """
heat_template_version: 2018-08-31
resources:
  web_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 5
      resource: {type: OS::Heat::RandomString}
  to_four:
    type: AWS::AutoScaling::ScalingPolicy
    properties:
      AdjustmentType: ExactCapacity
      AutoScalingGroupName: {get_resource: web_group}
      ScalingAdjustment: 4
  half_again:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: percent_change_in_capacity
      auto_scaling_group_id: {get_resource: web_group}
      scaling_adjustment: 50
      min_adjustment_step: 1
outputs:
  size: {value: {get_attr: [web_group, current_size]}}
  to_four: {value: {get_attr: [to_four, AlarmUrl]}}
  half_again: {value: {get_attr: [half_again, alarm_url]}}
"""


def test_the_aws_policy_and_a_percentage_within_a_group_of_min_size(
    tmp_path: Path, database_url: str
) -> None:
    world = SoftwareWorld(tmp_path, database_url)
    try:
        world.commit({"aws.yaml": AWS_POLICY})
        world.submit("web", "aws.yaml")
        world.converge("web")
        assert size(world) == 1  # no desired_capacity: min_size
        assert post(world.outputs("web")["to_four"]) == 200
        settle(world, 4)
        assert post(world.outputs("web")["half_again"]) == 200
        settle(world, 5)  # 4 + 2, kept within max_size
        assert world.engine.report("web").scalings == (
            "scaled web_group 1 -> 4 by to_four",
            "scaled web_group 4 -> 5 by half_again",
        )
    finally:
        world.close()


FAILING_MEMBERS = """
heat_template_version: 2018-08-31
resources:
  web_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 2
      max_size: 3
      resource:
        type: OS::Heat::TestResource
        properties: {fail: true}
"""


def test_a_group_that_cannot_hold_its_minimum_says_so(tmp_path: Path, database_url: str) -> None:
    world = SoftwareWorld(tmp_path, database_url)
    try:
        world.commit({"failing.yaml": FAILING_MEMBERS})
        world.submit("web", "failing.yaml")
        report = world.converge("web")["web"]
        assert report.status is StackStatus.FAILED
        assert "web_group holds 0 of its min_size 2: nested stack web/web_group FAILED" in str(
            report.failures
        )
    finally:
        world.close()


CORPUS_GROUP = (
    Path(__file__).resolve().parents[3] / "shared" / "corpus" / "heat-templates-hot" / "asg_of_servers.yaml"
)


@pytest.mark.skipif(not CORPUS_GROUP.is_file(), reason="the corpus is not present")
def test_the_corpus_group_of_servers_scales_up_and_down_through_its_webhooks(
    tmp_path: Path, database_url: str
) -> None:
    world = SoftwareWorld(tmp_path, database_url)
    try:
        world.cloud.create("keypairs", {"name": "ops", "public_key": "ssh-ed25519 AAAA ops"})
        world.cloud.create("networks", {"name": "private"})
        world.commit({"asg.yaml": CORPUS_GROUP.read_text(encoding="utf-8")})
        world.submit("asg", "asg.yaml", {"key_name": "ops", "image": "cirros-0.6.2-x86_64-disk"})
        assert world.converge("asg")["asg"].status is StackStatus.CONVERGED
        assert world.outputs("asg")["asg_size"] == 3
        assert post(world.outputs("asg")["scale_up_url"], body=None) == 200  # "no body nor extra headers"
        world.step_until(lambda: world.outputs("asg")["asg_size"] == 4 and world.engine.report("asg").settled)
        assert len(world.outputs("asg")["server_list"]) == 4
        world.pass_time(61, "asg")  # the policies' cooldown
        assert post(world.outputs("asg")["scale_dn_url"], body=None) == 200
        world.step_until(lambda: world.outputs("asg")["asg_size"] == 3 and world.engine.report("asg").settled)
        assert len(world.live("servers")) == 3
    finally:
        world.close()


def _plan(world: SoftwareWorld, parameters: dict[str, object]) -> dict[str, Action]:
    definition = load_stack(DirectorySource(world.repo_dir), "web.yaml", parameters=parameters)
    rules = CloudRoot(world.clock, sim=world.sim).for_cloud("sim")
    recorded = recorded_for_plan(world.store.read_compared_records("web"))
    plan = plan_stack(definition, recorded, rules, stack="web", nested=StoredRecords(world.store))
    return {path: item.action for path, item in plan.flattened() if item.action is not Action.UNCHANGED}


def test_a_plan_keeps_the_scaled_size_unless_the_bounds_change(world: SoftwareWorld) -> None:
    assert post(world.outputs("web")["up"]) == 200
    settle(world, 3)
    assert _plan(world, {}) == {}  # an unrelated commit leaves the group as its policies made it
    assert _plan(world, {"desired": 1, "max": 3}) == {
        "web_group": Action.UPDATE,
        "web_group.1": Action.DELETE,
        "web_group.2": Action.DELETE,
    }


def test_a_group_removed_and_declared_again_starts_from_gits_size(world: SoftwareWorld) -> None:
    assert post(world.outputs("web")["up"]) == 200
    settle(world, 3)
    world.commit({"empty.yaml": "heat_template_version: 2018-08-31\nresources: {}\n"})
    world.submit("web", "empty.yaml")
    assert world.converge("web")["web"].status is StackStatus.CONVERGED
    assert world.live("servers") == []
    world.submit("web", "web.yaml")
    assert world.converge("web")["web"].status is StackStatus.CONVERGED
    assert size(world) == 2
