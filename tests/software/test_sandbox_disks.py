"""A server's attached volumes as disks of its sandbox, plugged while its script runs.

Given a 1 GiB volume's image on a host loop device and a server prepared for disks whose script
already waits for `vdb` in `/proc/partitions`, when the disk is plugged, then the script finds
it, formats it, mounts it (the guest's fuse2fs driver), writes a file and unmounts, and the
volume's image holds the file (read on the host with debugfs). Unplugged, the disk is gone from
the server's next script; another server never had it. Every loop device made is gone at the end.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.settings import CloudSettings
from providers.simulated.volume_data import GIB, image_path
from reconciler.agent import loop_devices
from reconciler.agent.loop_devices import LoopDevice
from reconciler.agent.sandbox import sandbox_prefix
from reconciler.agent.sandbox_disks import Disk, prepare, show
from reconciler.daemon.sim_disks import unavailable_reason

pytestmark = [
    pytest.mark.skipif(unavailable_reason() is not None, reason=f"no disks here: {unavailable_reason()}"),
    pytest.mark.skipif(shutil.which("mkfs.ext4") is None, reason="e2fsprogs is not installed"),
]

WAIT_FORMAT_MOUNT_WRITE = """
for i in $(seq 1 300); do grep -q vdb /proc/partitions && break; sleep 0.1; done
mkfs.ext4 -q /dev/vdb || exit 4
mount /dev/vdb /mnt || exit 5
echo ateststring > /mnt/testfile
findmnt -n -o FSTYPE -T /mnt | tail -n 1
umount /mnt || exit 6
cat /proc/partitions
"""


def sandboxed(server: Path, script: str) -> subprocess.Popen[str]:
    run = server / "runs" / "run"
    run.mkdir(parents=True, exist_ok=True)
    prefix = sandbox_prefix(str(run.absolute()), str((server / "root").absolute()))
    command = [*prefix, "/bin/sh", "-c", script]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_sandboxed(server: Path, script: str) -> str:
    started = sandboxed(server, script)
    out, _ = started.communicate(timeout=60)
    return out


@pytest.fixture
def volume(tmp_path: Path) -> Iterator[tuple[Path, LoopDevice]]:
    """A 1 GiB volume's image on a loop device, detached (and checked gone) afterwards."""
    cloud = SimulatedCloud(CloudSettings(volume_data=tmp_path / "volumes"))
    made = cloud.create("volumes", {"size": 1})
    image = image_path(tmp_path / "volumes", "volumes", made["id"])
    device = loop_devices.attach(image)
    try:
        yield image, device
    finally:
        loop_devices.detach(device)
        assert loop_devices.backed_by(tmp_path) == []


def test_a_running_script_finds_a_plugged_disk_formats_mounts_and_writes_it(
    tmp_path: Path, volume: tuple[Path, LoopDevice]
) -> None:
    image, device = volume
    root = tmp_path / "server" / "root"
    prepare(root)
    script = sandboxed(tmp_path / "server", WAIT_FORMAT_MOUNT_WRITE)
    show(root, [Disk("vdb", GIB, device.major, device.minor)])
    out, err = script.communicate(timeout=120)
    assert script.returncode == 0, err
    assert out == "fuse.ext4\nmajor minor  #blocks  name\n\n 254       16    1048576 vdb\n"
    command = ["debugfs", "-R", "cat /testfile", str(image)]
    read = subprocess.run(command, capture_output=True, text=True, check=False)
    assert read.stdout == "ateststring\n"


def test_an_unplugged_disk_is_gone_and_another_server_never_had_it(
    tmp_path: Path, volume: tuple[Path, LoopDevice]
) -> None:
    _, device = volume
    root = tmp_path / "server" / "root"
    show(root, [Disk("vdb", GIB, device.major, device.minor)])
    look = "grep -c vdb /proc/partitions; test -b /dev/vdb && echo device"
    assert run_sandboxed(tmp_path / "server", look) == "1\ndevice\n"
    show(root, [])
    assert run_sandboxed(tmp_path / "server", look) == "0\n"
    assert run_sandboxed(tmp_path / "other", look) == "0\n"
