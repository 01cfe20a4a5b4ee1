"""The simulated cloud's volumes as disks of its servers, attached as a hypervisor attaches them.

When the daemon runs as root and the host has loop devices and FUSE (`unavailable_reason`), each
volume attached to a server of the fleet becomes a block device of that server's sandbox:

- when the attachment appears, the volume's image (`providers.simulated.volume_data`) is attached
  to a host loop device (`loop_devices`), whose node and line in /proc/partitions are plugged into
  the server's devices directory (`sandbox_disks`): a script already running sees the disk come;
- when it goes (the volume detached, the server or the volume deleted) and when the fleet stops,
  the node is unplugged first, then the loop device detached;
- a fleet over a cloud first detaches the loop devices backed by that cloud's images: what a
  daemon that died left. No other loop device of the host is ever touched.

Otherwise servers have no disks, as before, and the fleet says why once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.volume_data import image_path
from reconciler.agent import guest_filesystems, loop_devices, sandbox_disks
from reconciler.agent.loop_devices import LoopDevice, LoopDeviceError
from reconciler.agent.sandbox import isolation_available

LOG = logging.getLogger(__name__)
ROOT = "root"  # a server's sandbox root, under its state directory (`sandbox.root_of`)


@dataclass(frozen=True)
class Attached:
    """One volume attached to one server: the device name it has there, and its image."""

    server_id: str
    volume_id: str
    name: str
    image: Path


@dataclass(frozen=True)
class Plugged:
    """An attachment made a disk: the loop device holding it, the disk its server sees."""

    device: LoopDevice
    disk: sandbox_disks.Disk


def unavailable_reason() -> str | None:
    """Why the fleet's servers cannot have disks here, or None when they can."""
    if not isolation_available():
        return "user namespaces are not available"
    return loop_devices.unavailable_reason() or guest_filesystems.unavailable_reason()


def attached_volumes(cloud: SimulatedCloud, servers: Iterable[str]) -> list[Attached]:
    """The volumes of every region of `cloud` attached to one of `servers`, where it keeps data."""
    directory = cloud.settings.volume_data
    if directory is None:
        return []
    wanted = set(servers)
    return [
        Attached(
            str(attachment["server_id"]),
            str(volume["id"]),
            sandbox_disks.device_name(str(attachment.get("device") or "vdb")),
            image_path(directory, "volumes", str(volume["id"])),
        )
        for region in cloud.regions.values()
        for volume in region.items("volumes")
        for attachment in volume.get("attachments") or ()
        if attachment.get("server_id") in wanted
    ]


class FleetDisks:
    """The disks of a fleet's servers, kept in their state directories under `state_dir`."""

    def __init__(self, state_dir: Path) -> None:
        self._state_dir = state_dir
        self._available = False
        self._plugged: dict[tuple[str, str], Plugged] = {}
        self._refused: set[tuple[str, str]] = set()  # attachments whose loop device could not be made
        self._prepared: set[str] = set()
        self._swept: set[Path] = set()
        self._lock = threading.Lock()

    def start(self) -> str | None:
        """Find out whether servers may have disks here; why not, or None when they may."""
        reason = unavailable_reason()
        self._available = reason is None
        return reason

    def prepare(self, server_id: str) -> None:
        """Make the server's devices directory before its sandbox starts, so that disks plugged
        later appear in it (nodes a daemon that died left there are removed)."""
        with self._lock:
            if self._available and server_id not in self._prepared:
                self._show(server_id)
                self._prepared.add(server_id)

    def converge(self, cloud: SimulatedCloud, servers: Iterable[str]) -> None:
        """Plug the volumes now attached to `servers`, unplug every other."""
        present = set(servers)
        with self._lock:
            if not self._available:
                return
            self._sweep(cloud)
            wanted = {(item.server_id, item.volume_id): item for item in attached_volumes(cloud, present)}
            changed = {server for server, _ in set(self._plugged) ^ set(wanted)}
            for key in set(self._plugged) - set(wanted):
                self._unplug(key, show=key[0] in present)
            for key in set(wanted) - set(self._plugged) - self._refused:
                self._plug(wanted[key])
            self._refused &= set(wanted)
            self._prepared &= present
            for server_id in changed & present:
                self._show(server_id)

    def release(self) -> None:
        """Unplug every disk and detach its loop device (the fleet stops)."""
        with self._lock:
            self._available = False  # a scan still under way plugs nothing after this
            for key in list(self._plugged):
                self._unplug(key, show=True)
            self._prepared.clear()

    def _sweep(self, cloud: SimulatedCloud) -> None:
        directory = cloud.settings.volume_data
        if directory is None or directory in self._swept:
            return
        self._swept.add(directory)
        for device in loop_devices.backed_by(directory):
            if loop_devices.detach(device):
                LOG.info("detached %s, left attached to %s by a daemon before", device.path, device.image)

    def _plug(self, item: Attached) -> None:
        key = (item.server_id, item.volume_id)
        try:
            device = loop_devices.attach(item.image)
        except (LoopDeviceError, OSError) as error:
            self._refused.add(key)
            LOG.warning("volume %s is no disk of server %s: %s", item.volume_id, item.server_id, error)
            return
        size = item.image.stat().st_size if item.image.exists() else 0
        disk = sandbox_disks.Disk(item.name, size, device.major, device.minor)
        self._plugged[key] = Plugged(device, disk)
        LOG.info("volume %s is %s of server %s (%s)", item.volume_id, item.name, item.server_id, device.path)

    def _unplug(self, key: tuple[str, str], *, show: bool) -> None:
        plugged = self._plugged.pop(key)
        if show and (self._state_dir / key[0]).is_dir():
            self._show(key[0])  # the node goes before its loop device can serve anyone else
        loop_devices.detach(plugged.device)

    def _show(self, server_id: str) -> None:
        plugged = sorted(self._plugged.items())
        disks = [entry.disk for (server, _), entry in plugged if server == server_id]
        try:
            sandbox_disks.show(self._state_dir / server_id / ROOT, disks)
        except OSError as error:
            LOG.warning("the disks of server %s could not be shown to it: %s", server_id, error)
