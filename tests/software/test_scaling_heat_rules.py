"""Scenario: the rules Heat applies to a policy's signal beyond its arithmetic.

Given a group declaring its own `cooldown`, when it has just been created (or a commit changed
it), then a policy's signal changes nothing until that cooldown has passed, as Heat starts a
group's cooldown when its create or update completes. Given a policy naming its group by the
group's resource name instead of `get_resource`, then its signal scales that group, as Heat's
lookup by reference or name in the policy's stack finds it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld, converged_world
from tests.software.test_scaling_scenarios import ALARM, post

COOLING = """
heat_template_version: 2018-08-31
parameters:
  max: {type: number, default: 4}
resources:
  web_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: {get_param: max}
      desired_capacity: 2
      cooldown: 120
      resource:
        type: OS::Nova::Server
        properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
  scale_up:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: web_group
      scaling_adjustment: 1
      cooldown: 0
outputs:
  size: {value: {get_attr: [web_group, current_size]}}
  up: {value: {get_attr: [scale_up, alarm_url]}}
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    with converged_world(tmp_path, sqlite_url, COOLING) as world:
        yield world


def size(world: SoftwareWorld) -> int:
    return int(world.outputs("web")["size"])


def alarm(world: SoftwareWorld, reason: str) -> None:
    assert post(world.outputs("web")["up"], {**ALARM, "reason": reason}) == 200


def test_a_group_just_created_refuses_signals_during_its_own_cooldown(world: SoftwareWorld) -> None:
    alarm(world, "right after the create")
    world.pass_time(5, "web")
    assert size(world) == 2
    world.pass_time(120, "web")
    alarm(world, "after the cooldown")
    world.step_until(lambda: size(world) == 3)


def test_a_commit_changing_the_group_starts_its_cooldown_again(world: SoftwareWorld) -> None:
    world.pass_time(121, "web")
    world.submit("web", "web.yaml", parameters={"max": 5})
    assert world.converge("web")["web"].status is StackStatus.CONVERGED
    alarm(world, "right after the update")
    world.pass_time(5, "web")
    assert size(world) == 2
    world.pass_time(120, "web")
    alarm(world, "after the cooldown")
    world.step_until(lambda: size(world) == 3)
