"""Who a sandboxed server is: its name, its default user and key, its neighbours on the network.

A VM learns these from its cloud (Nova's metadata: host name, public keys; the image: its default
user; Neutron's DNS: its neighbours' names) and cloud-init applies them at boot. The simulated
cloud's fleet builds a `Machine` per server from the same facts; `write_spec` keeps it in the
server's state directory, where `sandbox_first_boot` applies it before each of the server's
scripts, and `peers` are the addresses the sandbox's network offers (`sandbox_relay --named`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from reconciler.agent import sandbox_relay

DEFAULT_USER = "ec2-user"  # Heat's cfn/ec2 images: what cloud-init calls the image's default user
SPEC = "machine.spec"
SSH_PORT = 22
LISTENED_BY_HOST = "-"  # the peer socket of a resident machine, whose neighbours the host listens for


@dataclass(frozen=True)
class Machine:
    """One server as its own scripts see it."""

    hostname: str
    default_user: str = DEFAULT_USER
    authorized_keys: tuple[str, ...] = ()
    hosts: tuple[tuple[str, str], ...] = ()  # (address, name) of the servers it shares a network with
    peers: tuple[str, ...] = field(default=())  # the addresses of those servers


def hostname_of(server_name: str) -> str:
    """Nova's host name for a server's display name: lower case, letters, digits and hyphens."""
    name = re.sub(r"[^a-z0-9.-]+", "-", server_name.lower().replace("_", "-")).strip("-.")
    return name[:63].rstrip("-.") or "server"


def spec_text(machine: Machine) -> str:
    """`machine` as its first boot reads it (`sandbox_first_boot.Spec`): one `FIELD VALUE` a line,
    read with no parser to import, since every machine's boot reads it."""
    keys = [" ".join(key.split()) for key in machine.authorized_keys]  # a key is one line
    lines = [f"hostname {machine.hostname}", f"default_user {machine.default_user}"]
    lines += [f"key {key}" for key in keys if key]
    lines += [f"host {address} {name}" for address, name in machine.hosts]
    return "".join(f"{line}\n" for line in lines)


def write_spec(machine: Machine, server_dir: Path) -> Path:
    """Keep `machine` in the server's state directory, for its sandbox's first boot."""
    spec = server_dir / SPEC
    text = spec_text(machine)
    try:
        if spec.read_text(encoding="utf-8") == text:
            return spec.absolute()  # asked at every script: most often unchanged, left as it is
    except (OSError, ValueError):
        server_dir.mkdir(parents=True, exist_ok=True)
    beside = server_dir / f".{SPEC}.new"
    beside.write_text(text, encoding="utf-8")
    beside.replace(spec)
    return spec.absolute()


@dataclass(frozen=True)
class MachineWay:
    """What a server's sandbox is started with: its spec (`write_spec`), and, when its neighbours
    are reachable, the peer gateway's socket for this server and the neighbours' addresses."""

    spec: Path
    hostname: str
    peer_socket: str | None = None
    peers: tuple[str, ...] = ()
    hidden: Path | None = None  # hidden from the sandbox: the state of every server (its runs' bound in)

    def launcher_arguments(self) -> list[str]:
        """The sandbox launcher's `machine` and `peers` sections."""
        hidden = str(self.hidden.absolute()) if self.hidden is not None else ""
        arguments = ["machine", str(self.spec), self.hostname, hidden]
        if self.peer_socket is not None and self.peers:
            addresses = ",".join(self.peers)
            arguments += ["peers", self.peer_socket, str(SSH_PORT), addresses, sandbox_relay.__file__]
        return arguments


def booted_as(
    machine: Machine, server_dir: Path, peer_socket: str | None = None, hidden: Path | None = None
) -> MachineWay:
    """How to start the server's sandbox as `machine` (its spec written now), reaching its
    neighbours through `peer_socket` when one is given, `hidden` (a directory holding every
    server's state, its own included) out of its sight."""
    spec = write_spec(machine, server_dir)
    return MachineWay(spec, machine.hostname, peer_socket, machine.peers if peer_socket else (), hidden)
