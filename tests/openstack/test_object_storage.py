"""OS::Swift::Container against the simulated cloud over HTTP, through openstacksdk."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, NotFound, Permanent
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import marker

CONTAINER = "OS::Swift::Container"


def test_a_container_carries_its_acls_metadata_and_marker_in_headers(sim: CloudUnderTest) -> None:
    properties = {
        "name": "site",
        "X-Container-Read": ".r:*",
        "X-Container-Meta": {"Web-Index": "index.html"},
        "X-Account-Meta": {"Temp-Url-Key": "k"},
    }
    created = sim.provider.create(CONTAINER, properties, marker("site"))

    assert created.physical_id == "site" and created.status is LiveStatus.READY
    assert created.properties["X-Container-Read"] == ".r:*"
    assert created.properties["X-Container-Meta"] == {"web-index": "index.html"}
    assert created.attributes["ObjectCount"] == 0
    assert created.attributes["WebsiteURL"].endswith("/site")
    stored = sim.cloud.get("containers", "site")
    assert "reconciler-marker" in stored["metadata"]
    assert sim.cloud.get("accounts", sim.cloud.settings.project_id)["metadata"] == {"temp-url-key": "k"}


def test_an_unnamed_container_is_found_by_its_marker_and_a_repeated_create_adopts_it(
    sim: CloudUnderTest,
) -> None:
    bucket = marker("bucket")
    created = sim.provider.create(CONTAINER, {}, bucket)

    found = sim.provider.find_by_marker(CONTAINER, bucket)
    again = sim.provider.create(CONTAINER, {}, bucket)

    assert found is not None and found.physical_id == created.physical_id
    assert again.physical_id == created.physical_id
    assert sim.cloud.count("containers") == 1
    assert sim.provider.find_by_marker(CONTAINER, marker("bucket")) is None


def test_containers_are_observed_by_paged_account_lists(sim: CloudUnderTest) -> None:
    names = [f"c{index:03d}" for index in range(5)]
    for name in names:
        sim.provider.create(CONTAINER, {"name": name}, marker(name))
    sim.cloud.update("containers", "c001", {"put_object": ("a.txt", 12)})
    sim.cloud.vanish("containers", "c004")
    sim.log.clear()

    seen = sim.provider.observe(CONTAINER, [*names, "absent"])

    assert set(seen) == set(names) - {"c004"}
    assert seen["c001"].attributes["ObjectCount"] == 1 and seen["c001"].attributes["BytesUsed"] == 12
    assert sim.log.count("GET") == 1 and sim.log.count("HEAD") == 0


def test_a_container_with_objects_is_deleted_only_when_it_asked_to_be_purged(sim: CloudUnderTest) -> None:
    sim.provider.create(CONTAINER, {"name": "kept"}, marker("kept"))
    sim.provider.create(CONTAINER, {"name": "purged", "PurgeOnDelete": True}, marker("purged"))
    for name in ("kept", "purged"):
        sim.cloud.update("containers", name, {"put_object": ("dir/a.txt", 3)})
        sim.cloud.update("containers", name, {"put_object": ("b.txt", 4)})

    sim.provider.delete(CONTAINER, "purged")

    assert set(sim.provider.observe(CONTAINER, ["kept", "purged"])) == {"kept"}
    with pytest.raises(Permanent, match="holds 2 objects and PurgeOnDelete is false"):
        sim.provider.delete(CONTAINER, "kept")
    with pytest.raises(NotFound):
        sim.provider.delete(CONTAINER, "purged")


def test_a_container_name_swift_refuses_fails_with_its_message(sim: CloudUnderTest) -> None:
    with pytest.raises(Permanent, match=r"HTTP 400: .*maximum length"):
        sim.provider.create(CONTAINER, {"name": "x" * 300}, marker("long"))
