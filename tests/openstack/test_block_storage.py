"""OS::Cinder::Volume and OS::Cinder::VolumeAttachment against the simulated cloud over HTTP."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, NotFound, Permanent, Retryable
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import FLAVOR, IMAGE, given_a_network, marker

VOLUME = "OS::Cinder::Volume"
ATTACHMENT = "OS::Cinder::VolumeAttachment"


def test_a_volume_carries_its_marker_in_metadata_and_is_found_by_it(sim: CloudUnderTest) -> None:
    data = marker("data")
    created = sim.provider.create(VOLUME, {"size": 2, "metadata": {"owner": "db"}}, data)
    sim.provider.create(VOLUME, {"size": 1}, marker("other"))
    sim.clock.advance(60)

    seen = sim.provider.observe(VOLUME, [created.physical_id])[created.physical_id]
    found = sim.provider.find_by_marker(VOLUME, data)

    assert seen.status is LiveStatus.READY
    assert seen.properties["metadata"] == {"owner": "db"}
    assert seen.marker == data
    assert found is not None and found.physical_id == created.physical_id


def test_a_volume_grows_renames_and_changes_metadata_in_place_but_never_shrinks(sim: CloudUnderTest) -> None:
    data = marker("data")
    created = sim.provider.create(VOLUME, {"size": 1, "name": "data"}, data)
    sim.clock.advance(60)

    updated = sim.provider.update(
        VOLUME,
        created.physical_id,
        {"size": 3, "name": "data-2", "metadata": {"tier": "gold"}},
        frozenset({"size", "name", "metadata"}),
    )
    sim.clock.advance(60)

    seen = sim.provider.observe(VOLUME, [created.physical_id])[created.physical_id]
    assert updated.physical_id == created.physical_id
    assert (seen.properties["size"], seen.properties["name"]) == (3, "data-2")
    assert seen.properties["metadata"] == {"tier": "gold"} and seen.marker == data
    with pytest.raises(Permanent, match="cannot shrink"):
        sim.provider.update(VOLUME, created.physical_id, {"size": 1}, frozenset({"size"}))


def test_a_volume_is_replaced_and_deleted(sim: CloudUnderTest) -> None:
    old = sim.provider.create(VOLUME, {"size": 1, "availability_zone": "nova"}, marker("data"))
    new = sim.provider.create(VOLUME, {"size": 1}, marker("data"))
    sim.clock.advance(60)

    sim.provider.delete(VOLUME, old.physical_id)

    assert set(sim.provider.observe(VOLUME, [old.physical_id, new.physical_id])) == {new.physical_id}
    with pytest.raises(NotFound):
        sim.provider.delete(VOLUME, old.physical_id)


def test_an_attachment_is_made_seen_moved_and_removed(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    server_properties = {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}
    first = sim.provider.create("OS::Nova::Server", server_properties, marker("first"))
    second = sim.provider.create("OS::Nova::Server", server_properties, marker("second"))
    volume = sim.provider.create(VOLUME, {"size": 1}, marker("data"))
    sim.clock.advance(60)
    properties = {"instance_uuid": first.physical_id, "volume_id": volume.physical_id}

    attached = sim.provider.create(ATTACHMENT, properties, marker("attach"))
    again = sim.provider.create(ATTACHMENT, properties, marker("attach"))
    sim.clock.advance(60)
    seen = sim.provider.observe(ATTACHMENT, [attached.physical_id])

    assert again.physical_id == attached.physical_id
    assert seen[attached.physical_id].status is LiveStatus.READY

    moved = sim.provider.update(
        ATTACHMENT,
        attached.physical_id,
        {**properties, "instance_uuid": second.physical_id},
        frozenset({"instance_uuid"}),
    )
    sim.clock.advance(60)
    assert set(sim.provider.observe(ATTACHMENT, [attached.physical_id, moved.physical_id])) == {
        moved.physical_id
    }

    sim.provider.delete(ATTACHMENT, moved.physical_id)
    sim.clock.advance(60)
    assert sim.provider.observe(ATTACHMENT, [moved.physical_id]) == {}


def test_a_snapshot_is_a_backup_made_once_and_reported_when_complete(sim: CloudUnderTest) -> None:
    data = marker("data")
    volume = sim.provider.create(VOLUME, {"size": 2}, data)
    sim.clock.advance(60)

    with pytest.raises(Retryable, match="is creating"):
        sim.provider.snapshot(VOLUME, volume.physical_id, data)
    sim.clock.advance(60)
    backup_id = sim.provider.snapshot(VOLUME, volume.physical_id, data)  # found again, not made twice

    (backup,) = sim.cloud.list("backups")
    assert (backup["id"], backup["volume_id"], backup["size"]) == (backup_id, volume.physical_id, 2)
    assert backup["description"] == data.tag
    assert sim.log.count("POST", "/backups") == 1


def test_a_snapshot_of_a_type_that_cannot_be_copied_is_refused(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    net = sim.provider.create("OS::Neutron::Net", {"name": "n"}, marker("net"))

    with pytest.raises(Permanent, match='"Snapshot" deletion policy not supported'):
        sim.provider.snapshot("OS::Neutron::Net", net.physical_id, marker("net"))


@pytest.mark.parametrize("source", ["snapshot_id", "backup_id", "source_volid"])
def test_a_volume_made_from_a_snapshot_backup_or_volume_takes_its_size_when_given_none(
    sim: CloudUnderTest, source: str
) -> None:
    original = sim.provider.create(VOLUME, {"size": 3}, marker("original"))
    sim.clock.advance(60)
    collection = {"snapshot_id": "snapshots", "backup_id": "backups"}.get(source)
    made_from = (
        original.physical_id
        if collection is None
        else str(sim.cloud.create(collection, {"volume_id": original.physical_id})["id"])
    )
    sim.clock.advance(60)

    copy = sim.provider.create(VOLUME, {source: made_from}, marker("copy"))
    bigger = sim.provider.create(VOLUME, {source: made_from, "size": 5}, marker("bigger"))

    assert copy.properties["size"] == 3
    assert bigger.properties["size"] == 5
    with pytest.raises(Permanent, match="cannot be smaller"):
        sim.provider.create(VOLUME, {source: made_from, "size": 1}, marker("smaller"))
