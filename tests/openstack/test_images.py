"""OS::Glance::WebImage against the simulated cloud over HTTP, through openstacksdk."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, NotFound, Permanent
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import marker

WEB_IMAGE = "OS::Glance::WebImage"
FEDORA = {
    "name": "fedora",
    "location": "https://download.example.org/fedora.qcow2",
    "disk_format": "qcow2",
    "container_format": "bare",
    "os_distro": "fedora",
    "tags": ["base"],
}


def test_an_image_is_queued_then_imported_to_active(sim: CloudUnderTest) -> None:
    created = sim.provider.create(WEB_IMAGE, FEDORA, marker("image"))

    assert created.status is LiveStatus.IN_PROGRESS
    assert sim.cloud.get("images", created.physical_id)["status"] == "importing"
    sim.clock.advance(60)
    seen = sim.provider.observe(WEB_IMAGE, [created.physical_id])[created.physical_id]
    assert seen.status is LiveStatus.READY
    assert seen.properties["tags"] == ["base"] and seen.properties["os_distro"] == "fedora"
    assert seen.marker is not None and seen.marker.resource == "image"


def test_an_image_is_found_by_its_marker(sim: CloudUnderTest) -> None:
    image = marker("image")
    created = sim.provider.create(WEB_IMAGE, FEDORA, image)

    found = sim.provider.find_by_marker(WEB_IMAGE, image)

    assert found is not None and found.physical_id == created.physical_id
    assert sim.provider.find_by_marker(WEB_IMAGE, marker("other")) is None


def test_tags_visibility_and_distribution_change_by_one_json_patch(sim: CloudUnderTest) -> None:
    created = sim.provider.create(WEB_IMAGE, FEDORA, marker("image"))
    sim.clock.advance(60)
    sim.log.clear()

    changed = sim.provider.update(
        WEB_IMAGE,
        created.physical_id,
        {
            **FEDORA,
            "tags": ["base", "v2"],
            "visibility": "shared",
            "os_distro": None,
            "architecture": "x86_64",
        },
        frozenset({"tags", "visibility", "os_distro", "architecture"}),
    )

    assert changed.properties["tags"] == ["base", "v2"]
    assert changed.properties["visibility"] == "shared" and changed.properties["architecture"] == "x86_64"
    assert "os_distro" not in changed.properties
    assert changed.marker is not None
    assert sim.log.count("PATCH") == 1


def test_a_protected_image_is_not_deleted_and_a_bad_format_is_refused(sim: CloudUnderTest) -> None:
    kept = sim.provider.create(WEB_IMAGE, {**FEDORA, "protected": True}, marker("kept"))
    gone = sim.provider.create(WEB_IMAGE, FEDORA, marker("gone"))
    sim.clock.advance(60)

    sim.provider.delete(WEB_IMAGE, gone.physical_id)

    with pytest.raises(Permanent, match="protected"):
        sim.provider.delete(WEB_IMAGE, kept.physical_id)
    with pytest.raises(NotFound):
        sim.provider.delete(WEB_IMAGE, gone.physical_id)
    with pytest.raises(Permanent, match="disk_format"):
        sim.provider.create(WEB_IMAGE, {**FEDORA, "disk_format": "floppy"}, marker("bad"))
