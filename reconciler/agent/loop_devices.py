"""Host loop devices: a volume's image file as a block device, as a hypervisor exposes a disk.

A loop device is a resource of the whole host, shared with everything else running there, so this
module only ever acts on devices it can name by their backing file: `attach` makes one for an
image (`losetup --find --show`), `detach` lets one go only while the kernel still reports the
image it was made for (a device someone else made since keeps its image), and `backed_by` finds
the devices whose images lie under a directory (what a daemon that died left behind, found again
by the next one over the same cloud).

Detaching a device still open (a file system on it still mounted in a sandbox) is deferred by the
kernel until its last user closes it: it is gone once that user is.

Only root may make loop devices; `unavailable_reason` says why a host cannot, or None.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from reconciler.agent.process_starts import run_apart

SYS_BLOCK = Path("/sys/block")
DELETED = " (deleted)"  # what the kernel appends to a backing file's name once it is unlinked
LOOP_CONTROL = "/dev/loop-control"
TIME_LIMIT = 30.0


class LoopDeviceError(Exception):
    """`losetup` refused: the host has no free device, or the image cannot be opened."""


@dataclass(frozen=True)
class LoopDevice:
    """One loop device: its node on the host (`/dev/loop3`), its device number, its image."""

    path: str
    major: int
    minor: int
    image: str

    @property
    def name(self) -> str:
        return os.path.basename(self.path)


def unavailable_reason() -> str | None:
    """Why this host cannot give volumes loop devices, or None when it can."""
    if os.geteuid() != 0:
        return "the daemon does not run as root"
    if shutil.which("losetup") is None:
        return "util-linux's losetup is missing"
    if not os.path.exists(LOOP_CONTROL):
        return f"{LOOP_CONTROL} is missing (no loop device support)"
    found = _losetup("--find")
    if found.returncode != 0:
        return f"losetup --find: {found.stderr.strip() or 'no free loop device'}"
    return None


def attach(image: Path) -> LoopDevice:
    """A new loop device backed by `image`."""
    done = _losetup("--find", "--show", str(image))
    if done.returncode != 0:
        raise LoopDeviceError(f"losetup {image}: {done.stderr.strip()}")
    path = done.stdout.strip()
    number = os.stat(path).st_rdev
    return LoopDevice(path, os.major(number), os.minor(number), str(image))


def detach(device: LoopDevice) -> bool:
    """Let `device` go if it is still backed by its image; whether it was."""
    if backing_file(device.name) != device.image:
        return False
    done = _losetup("--detach", device.path)
    return done.returncode == 0


def backing_file(name: str) -> str | None:
    """The image a loop device (`loop3`) is backed by as the kernel reports it (an image deleted
    since keeps its name), or None for a free device."""
    try:
        text = (SYS_BLOCK / name / "loop" / "backing_file").read_text(encoding="utf-8").rstrip("\n")
    except OSError:
        return None
    return text.removesuffix(DELETED) or None


def backed_by(directory: Path) -> list[LoopDevice]:
    """The loop devices whose images lie under `directory`."""
    prefix = str(directory.absolute()).rstrip("/") + "/"
    found = []
    for entry in sorted(SYS_BLOCK.glob("loop*")):
        image = backing_file(entry.name)
        if image is None or not image.startswith(prefix):
            continue
        major, minor = (int(part) for part in (entry / "dev").read_text(encoding="ascii").split(":"))
        found.append(LoopDevice(f"/dev/{entry.name}", major, minor, image))
    return found


def _losetup(*arguments: str) -> subprocess.CompletedProcess[str]:
    try:
        done = run_apart(["losetup", *arguments], timeout=TIME_LIMIT)
    except (OSError, subprocess.TimeoutExpired) as error:
        return subprocess.CompletedProcess(["losetup", *arguments], 125, "", str(error))
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
    )
