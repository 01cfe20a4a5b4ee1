"""Resident machines log in to one another with ssh, a neighbour met after boot included.

Given two servers' resident machines, the second booted before it knew the first, when the second
is told of its new neighbour (its spec changed: /etc/hosts, the address on its network) and its
default user's key is authorized on the first, then `ssh server-a hostname` from the second runs
in the first's machine (`sshd -i` entered there). An address no neighbour holds is unreachable.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.agent.peer_gateway import PeerGateway, Session
from reconciler.agent.resident_machines import Machines, resident_script_hook
from reconciler.agent.sandbox import isolation_available, relay_available
from reconciler.agent.sandbox_machine import LISTENED_BY_HOST, Machine, MachineWay, booted_as
from reconciler.agent.sandbox_sshd import serve_ssh
from reconciler.agent.sandbox_users import users_switchable
from tests.software.test_ssh_between_servers import KEY_ADD, KEY_GEN, SSH
from tests.system_tools import required_tool

A, ABSENT = "10.0.0.5", "10.0.0.77"

pytestmark = pytest.mark.skipif(
    not (isolation_available() and relay_available() and users_switchable()),
    reason="servers have users and a network of their own only as root, with user namespaces and iproute2",
)


class TwoMachines:
    """`a` (server-a at A) and `b` (server-b), resident; b learns of a when `introduce` is called."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.gateway = PeerGateway(self._route)
        self.gateway.start()
        self.machines = Machines(peers=self.gateway)
        self.machines.start()
        self.b_knows: tuple[tuple[str, str], ...] = ()

    def way(self, name: str) -> MachineWay:
        server = self.directory / name
        if name == "b":
            machine = Machine("server-b", hosts=self.b_knows, peers=tuple(a for a, _ in self.b_knows))
        else:
            machine = Machine("server-a")
        return booted_as(machine, server, LISTENED_BY_HOST)

    def introduce(self) -> None:
        self.b_knows = ((A, "server-a"),)

    def _route(self, source: str, address: str, port: int) -> Session | None:
        if (source, address, port) != ("b", A, 22):
            return None
        server = self.directory / "a"

        def enter(run_dir: str) -> list[str]:
            return list(self.machines.machine("a", server / "runs", self.way("a")).prefix(run_dir))

        def session(connection: socket.socket) -> None:
            serve_ssh(connection, server, self.way("a"), 60, enter)

        return session

    def run(self, script: str, on: str, **inputs: str) -> dict[str, Any]:
        hook = resident_script_hook(self.machines, on, lambda: self.way(on))
        deployment = {"config": script, "inputs": [{"name": k, "value": v} for k, v in inputs.items()]}
        return hook(deployment, self.directory / on / "runs", 60)

    def stop(self) -> None:
        self.machines.stop()
        self.gateway.stop()


@pytest.fixture
def machines(tmp_path: Path) -> Iterator[TwoMachines]:
    required_tool("sshd")
    machines = TwoMachines(tmp_path)
    yield machines
    machines.stop()


def test_a_machine_logs_in_to_a_neighbour_it_met_after_it_booted(machines: TwoMachines) -> None:
    made = machines.run(KEY_GEN, "b")  # b boots knowing no neighbour
    assert made["deploy_stdout"].startswith("ssh-rsa "), made
    assert machines.run(KEY_ADD, "a", key=made["deploy_stdout"].strip())["deploy_status_code"] == 0
    machines.introduce()
    logged_in = machines.run(SSH.format(target="server-a"), "b")
    assert logged_in["deploy_stdout"] == "server-a\n", logged_in
    unreachable = machines.run(SSH.format(target=ABSENT), "b")
    assert "Network is unreachable" in unreachable["deploy_stderr"]


def test_a_running_machine_takes_its_new_neighbours_hosts_file_as_first_boot_writes_it(
    machines: TwoMachines,
) -> None:
    shown = "cat /etc/hosts /etc/hostname; hostname; stat -c '%a %u %n' /etc/hosts /etc/hostname"
    assert "server-a" not in machines.run(shown, "b")["deploy_stdout"]  # b boots knowing no neighbour
    machines.introduce()
    assert machines.run(shown, "b")["deploy_stdout"].splitlines() == [
        "127.0.0.1 localhost",
        "127.0.1.1 server-b",
        "::1 localhost ip6-localhost ip6-loopback",
        f"{A} server-a",
        "server-b",
        "server-b",
        "644 0 /etc/hosts",
        "644 0 /etc/hostname",
    ]
