"""What the simulated cloud's hypervisor tells its VMs' agents: which servers run, who each one is,
and whom a connection from one reaches.

`Hypervisor` is the question asked by the agents' fleet (`sim_agents`): the ACTIVE servers of every
region with their user data (a server gone from it is deleted), a server as a machine
(`sim_machines.Neighbourhood`: host name, default user, keys, neighbours), and the simulated
network's verdict on one TCP connection (`sim_machines.reachable`). A hypervisor also exposes the
volumes attached to its servers as their disks (`sim_disks`). `CloudHypervisor` answers from the
simulated cloud of this process and holds the loop devices of its disks; the agents' own process
asks the daemon's over its link (`sim_agents_process`), which answers with a `CloudHypervisor`, so
the loop devices stay the daemon's to release.

A machine is asked for before every script its server runs. Its `machine_stamp` changes whenever
anything a machine is made of may have (servers, ports, key pairs, images), so the agents' process
keeps each server's machine while the stamp the daemon last announced is the one it was made at,
and the daemon answers every question asked at one stamp from one `Neighbourhood`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from providers.simulated.cloud import SimulatedCloud
from reconciler.agent.sandbox_machine import Machine
from reconciler.daemon.sim_disks import FleetDisks
from reconciler.daemon.sim_machines import Attachments, Neighbourhood, reachable

ACTIVE = "ACTIVE"
MACHINE_COLLECTIONS = ("servers", "ports", "keypairs", "images")  # what `machine_of` reads


@dataclass(frozen=True)
class BootedServer:
    """A server as its hypervisor boots it: what its agent reads at boot."""

    user_data: str | None
    config_drive: bool

    @classmethod
    def of(cls, body: Mapping[str, Any]) -> BootedServer:
        user_data = body.get("_user_data")
        return cls(str(user_data) if user_data is not None else None, bool(body.get("config_drive")))


class Hypervisor(Protocol):
    def booted(self) -> Mapping[str, BootedServer]:
        """The servers running now, by id."""

    def machine(self, server_id: str) -> Machine | None:
        """The server as a machine now, or None when it is gone."""

    def document(self, server_id: str) -> dict[str, Any] | None:
        """`machine(server_id)` as the wire carries it (`machine_document`)."""

    def machine_stamp(self) -> list[int] | None:
        """What every machine is made of, stamped: read before `machine`, an equal stamp later
        says its answer holds still (None: no stamp, ask every time)."""

    def route(self, source_id: str, address: str, port: int) -> str | None:
        """The server a TCP connection from `source_id` to `address`:`port` reaches, if any."""

    def start_disks(self) -> str | None:
        """Expose attached volumes as disks from now on; why servers cannot have any, or None."""

    def prepare_disks(self, server_id: str) -> None:
        """Ready the server's devices directory before its sandbox starts."""

    def converge_disks(self, equipped: Collection[str]) -> None:
        """Plug the volumes attached to the `equipped` servers (those with a sandbox), unplug every other."""

    def release_disks(self) -> None:
        """Unplug every disk and free its loop device."""


class CloudHypervisor:
    """The hypervisor of the simulated cloud `cloud()` gives once it is open (None before); its
    servers' devices directories are under `state_dir`, one directory per server."""

    def __init__(self, cloud: Callable[[], SimulatedCloud | None], state_dir: Path) -> None:
        self._cloud = cloud
        self._disks = FleetDisks(state_dir)
        self._attachments = Attachments()
        self._neighbourhood: tuple[list[int], Neighbourhood] | None = None  # and the stamp it was made at

    def booted(self) -> Mapping[str, BootedServer]:
        cloud = self._cloud()
        if cloud is None:
            return {}
        return {
            str(body["id"]): BootedServer.of(body)
            for region in cloud.regions.values()  # the VMs of every region the cloud serves
            for body in region.items("servers")
            if body.get("status") == ACTIVE
        }

    def machine(self, server_id: str) -> Machine | None:
        neighbourhood = self._neighbourhood_now()
        server = None if neighbourhood is None else neighbourhood.server(server_id)
        return None if neighbourhood is None or server is None else neighbourhood.machine(server)

    def document(self, server_id: str) -> dict[str, Any] | None:
        neighbourhood = self._neighbourhood_now()
        server = None if neighbourhood is None else neighbourhood.server(server_id)
        return None if neighbourhood is None or server is None else neighbourhood.document(server)

    def _neighbourhood_now(self) -> Neighbourhood | None:
        cloud = self._cloud()
        if cloud is None:
            return None
        cloud.count("servers")  # the world settled first: a server due to be ACTIVE by now is one
        # the stamp read before the neighbourhood is made: a change meanwhile leaves it behind
        stamp = self.machine_stamp()
        kept = self._neighbourhood
        if stamp is None or kept is None or kept[0] != stamp:
            kept = self._neighbourhood = (stamp or [], Neighbourhood(cloud, self._attachments.of(cloud)))
        return kept[1]

    def machine_stamp(self) -> list[int] | None:
        cloud = self._cloud()
        if cloud is None:
            return None
        inventories = cloud.world.inventories  # a world read again from its file: new versions
        return [
            inventories[collection].version if collection in inventories else 0
            for collection in MACHINE_COLLECTIONS
        ]

    def route(self, source_id: str, address: str, port: int) -> str | None:
        cloud = self._cloud()
        return (
            None if cloud is None else reachable(cloud, source_id, address, port, self._attachments.of(cloud))
        )

    def start_disks(self) -> str | None:
        return self._disks.start()

    def prepare_disks(self, server_id: str) -> None:
        self._disks.prepare(server_id)

    def converge_disks(self, equipped: Collection[str]) -> None:
        cloud = self._cloud()
        if cloud is not None:
            self._disks.converge(cloud, equipped)

    def release_disks(self) -> None:
        self._disks.release()
