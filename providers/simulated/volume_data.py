"""What a simulated Cinder volume holds: an image file of its size, as a volume's backing store is.

With `CloudSettings.volume_data` set (a directory; `SimulatedCloud.open` puts one beside the
cloud's file), every volume, snapshot and backup has an image there, `<collection>/<id>.img`:

- a new volume's image is sparse, of the volume's size (GiB), all zeros as a new volume reads;
- a volume made from a snapshot, a backup or another volume starts as a copy of its source's
  image, grown to its own size; a snapshot or backup is a copy of its volume's image when made;
- extending a volume grows its image; deleting a volume, snapshot or backup removes its image.

Copies keep holes as holes (only the data an image holds is copied), so a 1 GiB volume a script
wrote a file system to costs the blocks written, not a gibibyte. Without the setting volumes hold
no data, as before. The image of an attached volume is what the server's sandbox sees as its
disk (`reconciler.agent.sandbox_disks`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from providers.simulated.world import CloudWorld

GIB = 1 << 30
SUFFIX = ".img"


def image_path(directory: Path, collection: str, item_id: str) -> Path:
    """Where the image of one volume, snapshot or backup is kept under `directory`."""
    return directory / collection / f"{item_id}{SUFFIX}"


def make_image(world: CloudWorld, collection: str, item_id: str, size_gib: int, source: Path | None) -> None:
    """The image of a new volume, snapshot or backup: a copy of `source`'s when given, else empty;
    `size_gib` long either way."""
    directory = world.settings.volume_data
    if directory is None:
        return
    target = image_path(directory, collection, item_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    if source is not None and source.exists():
        copy_sparse(source, target)
    else:
        target.touch()
    grow_image(target, size_gib)


def source_image(world: CloudWorld, collection: str, item_id: str) -> Path | None:
    """The image of an existing volume, snapshot or backup, if the cloud keeps data."""
    directory = world.settings.volume_data
    return None if directory is None else image_path(directory, collection, item_id)


def grow_image(path: Path, size_gib: int) -> None:
    """Make the image `size_gib` long unless it is longer already (a volume never shrinks)."""
    if path.exists() and path.stat().st_size < size_gib * GIB:
        os.truncate(path, size_gib * GIB)


def extend_image(world: CloudWorld, item_id: str, size_gib: int) -> None:
    found = source_image(world, "volumes", item_id)
    if found is not None:
        grow_image(found, size_gib)


def remove_image(world: CloudWorld, collection: str, item_id: str) -> None:
    found = source_image(world, collection, item_id)
    if found is not None:
        with contextlib.suppress(FileNotFoundError):
            found.unlink()


def copy_sparse(source: Path, target: Path) -> None:
    """Copy `source` to `target` block for block where it holds data; its holes stay holes."""
    with open(source, "rb") as reading, open(target, "wb") as writing:
        size = os.fstat(reading.fileno()).st_size
        for start, end in _data_extents(reading.fileno(), size):
            reading.seek(start)
            writing.seek(start)
            remaining = end - start
            while remaining > 0:
                chunk = reading.read(min(remaining, 1 << 20))
                if not chunk:
                    break
                writing.write(chunk)
                remaining -= len(chunk)
        writing.truncate(size)


def _data_extents(descriptor: int, size: int) -> list[tuple[int, int]]:
    """The (start, end) ranges of a file that hold data, as the file system reports them."""
    extents, position = [], 0
    while position < size:
        try:
            start = os.lseek(descriptor, position, os.SEEK_DATA)
        except OSError:  # no data after `position` (ENXIO)
            break
        end = os.lseek(descriptor, start, os.SEEK_HOLE)
        extents.append((start, end))
        position = end
    return extents
