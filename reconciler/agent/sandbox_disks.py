"""A server's attached volumes as disks of its sandbox, hot-plugged as a hypervisor plugs them.

On a VM an attached volume is a block device named as Nova answers the attachment (`/dev/vdb`),
listed in `/proc/partitions`, where scripts wait for it: often a script already running when the
attachment comes. A server whose root directory holds a devices directory (`prepare`: the
`sandbox_root.DEVICES` directory and `sandbox_root.PARTITIONS` file) has its sandbox given that
directory as its /dev and the file as its /proc/partitions, both bound from the host, so what the
daemon changes there later, a running sandbox sees at once. `show` makes them list exactly the
disks given:

- first the nodes of disks gone are removed (once a loop device goes, its number may serve
  someone else's, which a stale node would hand the sandbox), then each disk's node is made at
  `dev/<name>` with its loop device's number (`loop_devices`), owned by the sandbox's root;
- then the partitions list is rewritten in place, as a VM's kernel lists such disks (virtio's
  major 254 for `vd*`, 16 minors a disk, the size in KiB): a script waiting for `vdb` there
  finds its node already made.

The sandbox formats such a disk with `mkfs.ext4 /dev/vdb` and mounts it with the guest's file
system driver (`guest_filesystems`).
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from reconciler.agent.sandbox_root import DEVICES, PARTITIONS

MAJORS = {"vd": 254, "xvd": 202, "sd": 8, "hd": 3}  # what a VM's kernel numbers such disks with
MINORS_PER_DISK = 16
NODE_MODE = 0o660


@dataclass(frozen=True)
class Disk:
    """One attached volume as its server sees it: its name (`vdb`), its size in bytes, and the
    number of the host's block device that holds it."""

    name: str
    size: int
    major: int
    minor: int


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


def prepare(root: Path) -> None:
    """Give the server whose root directory is `root` hot-pluggable disks, none plugged: any node
    a daemon that died left there is removed."""
    show(root, [])


def show(root: Path, disks: list[Disk]) -> None:
    """Make the server's devices directory and partitions list hold exactly `disks`."""
    devices = root / DEVICES
    devices.mkdir(parents=True, exist_ok=True)
    wanted = {disk.name: disk for disk in disks}
    for entry in os.scandir(devices):
        if _is_block_device(entry.path) and not _holds(entry.path, wanted.get(entry.name)):
            os.unlink(entry.path)
    for disk in disks:
        node = devices / disk.name
        if not _holds(str(node), disk):
            with contextlib.suppress(FileNotFoundError):
                node.unlink()
            os.mknod(node, stat.S_IFBLK | NODE_MODE, os.makedev(disk.major, disk.minor))
    _rewrite_in_place(root / PARTITIONS, partitions_text(disks))


def _is_block_device(path: str) -> bool:
    try:
        return stat.S_ISBLK(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _holds(path: str, disk: Disk | None) -> bool:
    """Whether the node at `path` is `disk`'s device."""
    if disk is None or not _is_block_device(path):
        return False
    number = os.lstat(path).st_rdev
    return (os.major(number), os.minor(number)) == (disk.major, disk.minor)


def _rewrite_in_place(path: Path, text: str) -> None:
    """Write `path` keeping its inode: a sandbox has it bound, and a rename would leave the bind on
    the old file."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        data = text.encode("ascii")
        os.pwrite(descriptor, data, 0)
        os.ftruncate(descriptor, len(data))
    finally:
        os.close(descriptor)
