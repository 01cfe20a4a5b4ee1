"""A server's attached volumes as disks of its sandbox.

Given a simulated cloud keeping volume data and a volume attached as `/dev/vdb`, when a script runs
in the server's sandbox with that disk, then `/proc/partitions` lists `vdb` with the volume's
size, `mkfs.ext4 /dev/vdb` formats the volume's own image (the host reads the file system and a
file a script put there with debugfs), and another server's sandbox has no such disk. `mount
/dev/vdb` still fails: mount(8) wants a loop device for a regular file, which the sandbox has not.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.settings import CloudSettings
from providers.simulated.volume_data import GIB, image_path
from reconciler.agent.sandbox import isolation_available, sandbox_prefix
from reconciler.agent.sandbox_disks import Disk, write_disks

pytestmark = [
    pytest.mark.skipif(not isolation_available(), reason="user namespaces are not available here"),
    pytest.mark.skipif(shutil.which("mkfs.ext4") is None, reason="e2fsprogs is not installed"),
]

FORMAT_AND_WRITE = """
grep -q vdb /proc/partitions || exit 3
mkfs.ext4 -q /dev/vdb || exit 4
echo ateststring > note
debugfs -w -R "write note testfile" /dev/vdb >/dev/null 2>&1 || exit 5
cat /proc/partitions
"""


def run_in_sandbox(server: Path, script: str, disks: Path | None) -> subprocess.CompletedProcess[str]:
    run = server / "runs" / "run"
    run.mkdir(parents=True, exist_ok=True)
    prefix = sandbox_prefix(str(run.absolute()), str((server / "root").absolute()), disks=disks)
    command = [*prefix, "/bin/sh", "-c", script]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture
def attached(tmp_path: Path) -> tuple[Path, Path]:
    """A 1 GiB volume's image, and the spec of a server having it as vdb."""
    cloud = SimulatedCloud(CloudSettings(volume_data=tmp_path / "volumes"))
    volume = cloud.create("volumes", {"size": 1})
    image = image_path(tmp_path / "volumes", "volumes", volume["id"])
    spec = write_disks([Disk("vdb", str(image), GIB)], tmp_path / "server")
    return image, spec


def test_a_script_formats_its_attached_volume_and_the_volume_holds_what_it_wrote(
    tmp_path: Path, attached: tuple[Path, Path]
) -> None:
    image, spec = attached
    done = run_in_sandbox(tmp_path / "server", FORMAT_AND_WRITE, spec)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "major minor  #blocks  name\n\n 254       16    1048576 vdb\n"
    command = ["debugfs", "-R", "cat /testfile", str(image)]
    read = subprocess.run(command, capture_output=True, text=True, check=False)
    assert read.stdout == "ateststring\n"


def test_another_server_has_no_such_disk(tmp_path: Path, attached: tuple[Path, Path]) -> None:
    done = run_in_sandbox(tmp_path / "other", "grep vdb /proc/partitions; ls /dev/vdb", None)
    assert done.returncode != 0
    assert "vdb" not in done.stdout


def test_mounting_the_disk_fails_for_want_of_a_loop_device(
    tmp_path: Path, attached: tuple[Path, Path]
) -> None:
    script = "mkfs.ext4 -q /dev/vdb && mount /dev/vdb /mnt; echo $?; findmnt -n -o SOURCE -T /mnt"
    done = run_in_sandbox(tmp_path / "server", script, attached[1])
    status, source = done.stdout.split("\n", 1)
    assert status != "0"
    assert "vdb" not in source  # /mnt is the server's own directory still
