"""What simulated volumes hold: an image file each, copied into snapshots, backups and new volumes.

Given a simulated cloud keeping volume data in a directory, a volume is a sparse image of its size,
a snapshot or backup a copy of its volume's image when made (later writes to the volume are not
in it), a volume made from one starts as its copy, and deleting any of them removes its image.
"""

from __future__ import annotations

from pathlib import Path

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.settings import CloudSettings
from providers.simulated.volume_data import GIB, image_path

MARK = b"written by the server"


def cloud_keeping_data(directory: Path) -> SimulatedCloud:
    return SimulatedCloud(CloudSettings(volume_data=directory))


def write_at(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as image:
        image.seek(offset)
        image.write(data)


def read_at(path: Path, offset: int, length: int) -> bytes:
    with open(path, "rb") as image:
        image.seek(offset)
        return image.read(length)


def test_a_new_volume_is_a_sparse_image_of_its_size(tmp_path: Path) -> None:
    volume = cloud_keeping_data(tmp_path).create("volumes", {"size": 2})
    image = image_path(tmp_path, "volumes", volume["id"])
    assert image.stat().st_size == 2 * GIB
    assert image.stat().st_blocks == 0


def test_a_snapshot_holds_its_volume_as_it_was_and_a_volume_made_from_it_starts_as_that(
    tmp_path: Path,
) -> None:
    cloud = cloud_keeping_data(tmp_path)
    volume = cloud.create("volumes", {"size": 1})
    write_at(image_path(tmp_path, "volumes", volume["id"]), 5 * 4096, MARK)
    snapshot = cloud.create("snapshots", {"volume_id": volume["id"]})
    write_at(image_path(tmp_path, "volumes", volume["id"]), 5 * 4096, b"X" * len(MARK))

    restored = cloud.create("volumes", {"snapshot_id": snapshot["id"], "size": 2})

    assert read_at(image_path(tmp_path, "snapshots", snapshot["id"]), 5 * 4096, len(MARK)) == MARK
    copy = image_path(tmp_path, "volumes", restored["id"])
    assert read_at(copy, 5 * 4096, len(MARK)) == MARK
    assert copy.stat().st_size == 2 * GIB
    assert copy.stat().st_blocks * 512 < 1 << 20  # the holes were not written


def test_a_backup_and_a_volume_cloned_from_another_carry_its_data(tmp_path: Path) -> None:
    cloud = cloud_keeping_data(tmp_path)
    volume = cloud.create("volumes", {"size": 1})
    write_at(image_path(tmp_path, "volumes", volume["id"]), 0, MARK)
    backup = cloud.create("backups", {"volume_id": volume["id"]})
    clone = cloud.create("volumes", {"source_volid": volume["id"]})
    from_backup = cloud.create("volumes", {"backup_id": backup["id"]})
    for collection, item in (("backups", backup), ("volumes", clone), ("volumes", from_backup)):
        assert read_at(image_path(tmp_path, collection, item["id"]), 0, len(MARK)) == MARK


def test_extending_a_volume_grows_its_image_and_deleting_removes_every_image(tmp_path: Path) -> None:
    cloud = cloud_keeping_data(tmp_path)
    volume = cloud.create("volumes", {"size": 1})
    cloud.act("volumes", volume["id"], "os-extend", {"new_size": 3})
    assert image_path(tmp_path, "volumes", volume["id"]).stat().st_size == 3 * GIB
    snapshot = cloud.create("snapshots", {"volume_id": volume["id"]})
    backup = cloud.create("backups", {"volume_id": volume["id"]})

    cloud.delete("snapshots", snapshot["id"])
    cloud.delete("backups", backup["id"])
    cloud.delete("volumes", volume["id"])

    assert [path for path in tmp_path.rglob("*") if path.is_file()] == []


def test_a_cloud_opened_from_its_file_keeps_volume_data_beside_it(tmp_path: Path) -> None:
    cloud = SimulatedCloud.open(tmp_path / "cloud.json")
    volume = cloud.create("volumes", {"size": 1})
    assert image_path(tmp_path / "cloud.json.volumes", "volumes", volume["id"]).exists()


def test_a_cloud_without_a_data_directory_keeps_no_images(tmp_path: Path) -> None:
    cloud = SimulatedCloud()
    cloud.delete("volumes", cloud.create("volumes", {"size": 1})["id"])
    assert list(tmp_path.iterdir()) == []
