"""Scenario: Swift containers converge, come back when deleted by hand, and leave with their objects
only when they asked for it (Heat's PurgeOnDelete)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0

CONTAINERS = """
heat_template_version: 2018-08-31
parameters:
  with_scratch: {type: boolean, default: true}
conditions:
  scratch_wanted: {get_param: with_scratch}
resources:
  site:
    type: OS::Swift::Container
    properties:
      name: site
      X-Container-Read: ".r:*"
      X-Container-Meta: {Web-Index: index.html}
  scratch:
    type: OS::Swift::Container
    condition: scratch_wanted
    properties: {PurgeOnDelete: true}
outputs:
  url: {value: {get_attr: [site, WebsiteURL]}}
  objects: {value: {get_attr: [site, ObjectCount]}}
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[World]:
    world = World(tmp_path, sqlite_url, observe_interval=OBSERVE_INTERVAL)
    world.commit({"stack.yaml": CONTAINERS})
    yield world
    world.close()


def test_containers_converge_and_a_deleted_one_comes_back(world: World) -> None:
    world.submit("files", "stack.yaml")
    report = world.converge("files")["files"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.outputs("files")["url"].endswith("/site")
    assert world.outputs("files")["objects"] == 0

    world.cloud.vanish("containers", "site")
    report = world.pass_time(OBSERVE_INTERVAL + 1, "files")["files"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert {body["name"] for body in world.live("containers")} >= {"site"}
    assert world.cloud.get("containers", "site")["read_acl"] == ".r:*"


def test_a_pruned_container_is_emptied_when_it_asked_to_be(world: World) -> None:
    world.submit("files", "stack.yaml")
    world.converge("files")
    scratch = world.records("files")["scratch"].physical_id
    world.cloud.update("containers", scratch, {"put_object": ("tmp.bin", 100)})

    world.submit("files", "stack.yaml", {"with_scratch": False})
    report = world.converge("files")["files"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert [body["name"] for body in world.live("containers")] == ["site"]
