"""Scenario: a Glance image imported from a URL is active before the server that boots from it is
made, and an image deleted by hand is imported again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings
from reconciler.engine import StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0

IMAGE_AND_SERVER = """
heat_template_version: 2018-08-31
resources:
  image:
    type: OS::Glance::WebImage
    properties:
      name: fedora
      location: https://download.example.org/fedora.qcow2
      disk_format: qcow2
      container_format: bare
      tags: [base]
  server:
    type: OS::Nova::Server
    properties:
      image: {get_resource: image}
      flavor: m1.tiny
outputs:
  image: {value: {get_resource: image}}
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[World]:
    world = World(
        tmp_path, sqlite_url, cloud=CloudSettings(time_to_active=20.0), observe_interval=OBSERVE_INTERVAL
    )
    world.commit({"stack.yaml": IMAGE_AND_SERVER})
    yield world
    world.close()


def test_the_server_waits_for_its_image_to_be_active(world: World) -> None:
    world.submit("images", "stack.yaml")

    report = world.converge("images")["images"]

    assert report.status is StackStatus.CONVERGED, report.failures
    image = world.cloud.get("images", world.outputs("images")["image"])
    (server,) = world.live("servers")
    assert image["status"] == "active" and "base" in image["tags"]
    assert server["created"] >= image["updated_at"]


def test_an_image_deleted_by_hand_is_imported_again(world: World) -> None:
    world.submit("images", "stack.yaml")
    world.converge("images")
    first = world.outputs("images")["image"]

    world.cloud.vanish("images", first)
    report = world.pass_time(OBSERVE_INTERVAL + 1, "images")["images"]

    assert report.status is StackStatus.CONVERGED, report.failures
    fedora = [image for image in world.live("images") if image["name"] == "fedora"]
    assert len(fedora) == 1 and fedora[0]["id"] != first and fedora[0]["status"] == "active"
