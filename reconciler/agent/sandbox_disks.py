"""A server's attached volumes as disks of its sandbox: `/dev/vdb` and a line in `/proc/partitions`.

On a VM an attached volume is a block device named as Nova answers the attachment (`/dev/vdb`),
listed in `/proc/partitions`, where scripts wait for it. The sandbox shows each attached volume
the same way: its image file (the simulated cloud's volume data) bound at `/dev/<name>`, so
`mkfs.ext4 /dev/vdb` writes the volume itself, and a generated `/proc/partitions` (virtio's major
254 for `vd*`, 16 minors a disk, the size in KiB) bound over the sandbox's own.

`write_disks` keeps a server's disks in its state directory (the daemon's side); the sandbox runs
this file by path with the standard library only (`python -I -S sandbox_disks.py TREE SPEC`) on
the server's tree before it becomes the root: exit 0 once bound, 125 otherwise.

The image is a regular file, not a block device: mount(8) sets up a loop device for a regular
file before it looks for a file system's helper, and the sandbox has none, so `mount /dev/vdb`
fails (`mount: /mnt: mount failed: Operation not permitted`) where a VM's succeeds.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPEC = "disks.json"
PARTITIONS = "partitions"
MS_BIND = 4096
MAJORS = {"vd": 254, "xvd": 202, "sd": 8, "hd": 3}  # what a VM's kernel numbers such disks with
MINORS_PER_DISK = 16


@dataclass(frozen=True)
class Disk:
    """One attached volume: its device name in the server (`vdb`), its image, its size in bytes."""

    name: str
    image: str
    size: int


def device_name(device: str) -> str:
    """The name under /dev of an attachment's device (`/dev/vdb` -> `vdb`)."""
    return device.removeprefix("/dev/").strip("/").replace("/", "-")


def partitions_text(disks: list[Disk]) -> str:
    """`/proc/partitions` as a VM with these disks shows it."""
    rows = ["major minor  #blocks  name", ""]
    for disk in disks:
        prefix = disk.name.rstrip("abcdefghijklmnopqrstuvwxyz")
        letter = disk.name[len(prefix) :][-1:] or "a"
        major = MAJORS.get(prefix, 254)
        minor = MINORS_PER_DISK * (ord(letter) - ord("a"))
        rows.append(f"{major:4d}  {minor:7d} {disk.size // 1024:10d} {disk.name}")
    return "\n".join(rows) + "\n"


def write_disks(disks: list[Disk], server_dir: Path) -> Path:
    """Keep `disks` in the server's state directory for its sandbox; the spec's path."""
    directory = server_dir / "disks"
    directory.mkdir(parents=True, exist_ok=True)
    partitions = directory / PARTITIONS
    beside = directory / f".{PARTITIONS}.new"
    beside.write_text(partitions_text(disks), encoding="utf-8")
    beside.replace(partitions)
    document = {
        "partitions": str(partitions.absolute()),
        "disks": [{"name": disk.name, "image": disk.image, "size": disk.size} for disk in disks],
    }
    spec = directory / SPEC
    beside = directory / f".{SPEC}.new"
    beside.write_text(json.dumps(document), encoding="utf-8")
    beside.replace(spec)
    return spec.absolute()


def bind(source: str, target: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(source.encode(), target.encode(), None, ctypes.c_ulong(MS_BIND), None) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"bind {source} on {target}: {os.strerror(number)}")


def attach(tree: str, spec: dict[str, Any]) -> None:
    """Bind each disk's image at `tree`/dev/NAME and the generated partitions over /proc's."""
    for disk in spec["disks"]:
        target = os.path.join(tree, "dev", device_name(str(disk["name"])))
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o660))
        bind(str(disk["image"]), target)
    bind(str(spec["partitions"]), os.path.join(tree, "proc", "partitions"))


def main(arguments: list[str]) -> int:
    try:
        attach(arguments[0], json.loads(Path(arguments[1]).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"sandbox: disks: {error}", file=sys.stderr)
        return 125
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
