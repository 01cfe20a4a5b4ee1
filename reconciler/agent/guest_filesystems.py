"""The guest's ext2/3/4 driver: mounting and unmounting a disk's file system inside the sandbox.

The sandbox is a user namespace, where the kernel's ext4 mounts nothing from a block device. As a
VM's image ships the file system drivers its kernel lacks, the sandbox's root holds mount(8)'s
helpers for them (`sandbox_root` writes them for a server that has disks, `HELPERS`):

- `mount.ext4` (and ext2, ext3), which mount(8) runs for a disk it finds formatted so, mounts the
  disk with fuse2fs (e2fsprogs' FUSE driver) through the sandbox's /dev/fuse, open to every user
  of the server and over a directory's files as a kernel's mount is, read-only when asked;
- `umount.fuse`, which umount(8) runs for every FUSE mount, unmounts as umount(8) does, then
  waits for the driver that served the mount to exit: the kernel does not wait for a FUSE driver
  to write what it holds, and a script that unmounts and then says its data is written (a wait
  condition signalled) must be right, as it is on a VM.

Run inside the sandbox by path with the standard library only: `python -I -S guest_filesystems.py
mount.ext4 DEVICE DIRECTORY [-sfnv] [-N NAMESPACE] [-o OPTIONS] [-t TYPE]` or `... umount.fuse
DIRECTORY [-nlfvr] [-N NAMESPACE] [-t TYPE]`; the exit status is mount(8)'s or umount(8)'s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

DRIVER = "fuse2fs"
FUSE = "/dev/fuse"
EXT_TYPES = ("ext2", "ext3", "ext4")
HELPERS = (*(f"mount.{kind}" for kind in EXT_TYPES), "umount.fuse")
DRIVER_EXIT_WAIT = 120.0
POLL = 0.05
MOUNT_FAILED = 32  # mount(8)'s status for a failed mount


def unavailable_reason() -> str | None:
    """Why this host cannot give its sandboxes this driver, or None when it can."""
    if shutil.which(DRIVER) is None:
        return f"{DRIVER} is not installed (Debian's {DRIVER} package)"
    try:
        os.close(os.open(FUSE, os.O_RDWR))
    except OSError as error:
        return f"{FUSE} is not usable: {error.strerror}"
    return None


def mount(arguments: list[str]) -> int:
    """Mount DEVICE on DIRECTORY with the FUSE driver, as mount(8) asked its helper to."""
    if len(arguments) < 2:
        print("mount helper: DEVICE and DIRECTORY are needed", file=sys.stderr)
        return MOUNT_FAILED
    device, directory = arguments[0], os.path.realpath(arguments[1])
    options = ["allow_other", "nonempty"]  # the kernel mounts over a directory's files too
    if "ro" in _asked_options(arguments[2:]):
        options.append("ro")
    command = [DRIVER, device, directory, "-o", ",".join(options)]
    try:
        done = subprocess.run(command, check=False)
    except OSError as error:
        print(f"mount: {device}: {DRIVER}: {error}", file=sys.stderr)
        return MOUNT_FAILED
    # fuse2fs says nothing by its status when FUSE refused the mount: the mount table does
    if done.returncode != 0 or fuse_mounted_at(directory) is None:
        return MOUNT_FAILED
    return 0


def fuse_mounted_at(directory: str) -> str | None:
    """The source of the FUSE mount on top at `directory`, if there is one."""
    found = None
    with open("/proc/self/mountinfo", encoding="utf-8") as mountinfo:
        for line in mountinfo:
            fields = line.split()
            point = fields[4].replace("\\040", " ")
            after = fields[fields.index("-") + 1 :]
            if point == directory:
                found = after[1] if after[0].startswith("fuse") else None
    return found


def _asked_options(flags: list[str]) -> list[str]:
    """The mount options among a helper's flags (`-o ro,noatime` -> ro, noatime)."""
    asked: list[str] = []
    for index, flag in enumerate(flags):
        if flag == "-o" and index + 1 < len(flags):
            asked += flags[index + 1].split(",")
        elif flag.startswith("-o") and len(flag) > 2:
            asked += flag[2:].split(",")
    return asked


def umount(arguments: list[str]) -> int:
    """Unmount a FUSE mount as umount(8) does, then wait for its driver to have written it all."""
    if not arguments:
        print("umount helper: DIRECTORY is needed", file=sys.stderr)
        return MOUNT_FAILED
    driver = driver_of(os.path.realpath(arguments[0]))
    done = subprocess.run(["umount", "-i", *arguments], check=False)
    if done.returncode == 0 and driver is not None:
        wait_for_exit(driver, DRIVER_EXIT_WAIT)
    return done.returncode


def driver_of(target: str) -> int | None:
    """The process of the FUSE driver serving the mount at `target` (or of the device `target`),
    if one of ours does."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                argv = [part.decode(errors="replace") for part in file.read().split(b"\0") if part]
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) == DRIVER and target in argv[1:3]:  # the device or its mount
            return int(entry)
    return None


def wait_for_exit(process: int, limit: float) -> None:
    """Wait until `process` has exited (a zombie has: its files are closed), at most `limit` s."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{process}/stat", encoding="ascii", errors="replace") as file:
                state = file.read().rsplit(")", 1)[-1].split()[0]
        except (OSError, IndexError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(POLL)


def main(arguments: list[str]) -> int:
    helper, rest = (arguments[0], arguments[1:]) if arguments else ("", [])
    if helper.startswith("mount."):
        return mount(rest)
    if helper == "umount.fuse":
        return umount(rest)
    print(f"guest file systems: no helper {helper!r}", file=sys.stderr)
    return MOUNT_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
