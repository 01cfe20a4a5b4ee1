"""Scenario: an OS::Heat::Stack deeper in the tree, whose region is known only once its owner's
properties resolve, is refused at apply before its nested stack exists."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.world import World

STACK = """
heat_template_version: 2018-08-31
parameters:
  region: {type: string}
resources:
  holder:
    type: holder.yaml
    properties: {region: {get_param: region}}
"""

HOLDER = """
heat_template_version: 2018-08-31
parameters:
  region: {type: string}
resources:
  network_stack:
    type: OS::Heat::Stack
    properties:
      context: {region_name: {get_param: region}}
      template: |
        heat_template_version: 2018-08-31
        resources:
          router: {type: OS::Neutron::Router}
"""


def _converged(tmp_path: Path, sqlite_url: str, region: str) -> tuple[World, StackStatus, str]:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": STACK, "holder.yaml": HOLDER})
    world.submit("tree", "stack.yaml", {"region": region})
    report = world.converge("tree", within=60.0)["tree"]
    return world, report.status, "; ".join(str(failure) for failure in report.failures)


def test_a_nested_remote_stack_in_a_region_the_cloud_lacks_fails_with_the_reason_and_builds_nothing(
    tmp_path: Path, sqlite_url: str
) -> None:
    world, status, failures = _converged(tmp_path, sqlite_url, "RegionTwo")

    assert status is not StackStatus.CONVERGED
    assert "context.region_name 'RegionTwo' is not a region of cloud 'sim' (it has RegionOne)" in failures
    assert world.live("routers") == []
    world.close()


def test_a_nested_remote_stack_in_the_clouds_region_converges(tmp_path: Path, sqlite_url: str) -> None:
    world, status, failures = _converged(tmp_path, sqlite_url, "RegionOne")

    assert status is StackStatus.CONVERGED, failures
    assert len(world.live("routers")) == 1
    world.close()
