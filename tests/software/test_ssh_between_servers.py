"""Servers of the simulated cloud log in to one another with ssh, as VMs on one network do.

Given two servers booted as machines, the second reaching the first's address through the peer
gateway, when the second's script makes a key as its default user, the first's script authorizes
it, and the second runs `ssh <first's host name> hostname`, then OpenSSH's own client and server
(`sshd -i` in the first server's sandbox, with its own host keys) run the command there. An
address the simulated network refuses closes the connection; one it does not offer, and the
host's loopback, are unreachable. The public corpus' ssh-copy-id example converges with its three
scripts run by the agents, its output ending in the first server's host name.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.agent.peer_gateway import PeerGateway, Session
from reconciler.agent.sandbox import isolation_available, relay_available, sandboxed_script_hook
from reconciler.agent.sandbox_machine import Machine, booted_as, hostname_of
from reconciler.agent.sandbox_sshd import serve_ssh
from reconciler.agent.sandbox_users import users_switchable
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld
from tests.software.test_corpus_with_agents import (
    CORPUS,
    DEFAULT_IMAGES,
    EXAMPLES,
    KEY,
    NETWORK,
    PUBLIC_KEY,
    converge,
)
from tests.software.test_sim_agents import agents_for
from tests.system_tools import required_tool

A, B, REFUSED, ABSENT = "10.0.0.5", "10.0.0.6", "10.0.0.9", "10.0.0.77"
HOSTS = (("10.0.0.5", "server-a"), ("10.0.0.6", "server-b"), ("10.0.0.9", "refused"))
KEY_GEN = """#!/bin/bash
su - ec2-user <<EOF
test -f .ssh/id_rsa.pub || ssh-keygen -q -t rsa -N "" -f .ssh/id_rsa
cat .ssh/id_rsa.pub
EOF
"""
KEY_ADD = "#!/bin/bash\necho \"$key\" | su - ec2-user -c 'tee -a .ssh/authorized_keys' >/dev/null\n"
SSH = (
    "#!/bin/bash\nsu - ec2-user -c 'ssh -o StrictHostKeyChecking=no -o ConnectTimeout=30 {target} hostname'\n"
)

pytestmark = pytest.mark.skipif(
    not (isolation_available() and relay_available() and users_switchable()),
    reason="servers have users and a network of their own only as root, with user namespaces and iproute2",
)


@pytest.fixture
def sshd() -> str:
    return required_tool("sshd")


class TwoServers:
    """Servers `server-a` (at A) and `server-b` (at B); b's sandbox is offered A and REFUSED."""

    def __init__(self, directory: Path) -> None:
        self.a, self.b = directory / "a", directory / "b"
        self.a_way = booted_as(Machine("server-a", hosts=HOSTS), self.a)
        self.gateway = PeerGateway(self._route)
        self.gateway.start()
        b_machine = Machine("server-b", hosts=HOSTS, peers=(A, REFUSED))
        self.b_way = booted_as(b_machine, self.b, self.gateway.socket_for("b"))

    def _route(self, source: str, address: str, port: int) -> Session | None:
        if (source, address, port) != ("b", A, 22):
            return None  # the network's verdict: nothing else is reachable

        def session(connection: socket.socket) -> None:
            serve_ssh(connection, self.a, self.a_way, 60)

        return session

    def run(self, script: str, on: str, **inputs: str) -> dict[str, Any]:
        server, way = (self.a, self.a_way) if on == "a" else (self.b, self.b_way)
        deployment = {"config": script, "inputs": [{"name": k, "value": v} for k, v in inputs.items()]}
        return sandboxed_script_hook(deployment, server / "runs", 60, None, way)


@pytest.fixture
def servers(tmp_path: Path, sshd: str) -> Iterator[TwoServers]:
    servers = TwoServers(tmp_path)
    yield servers
    servers.gateway.stop()


def test_a_server_logs_in_to_its_neighbour_with_ssh_and_runs_a_command_there(servers: TwoServers) -> None:
    made = servers.run(KEY_GEN, "b")
    assert made["deploy_stdout"].startswith("ssh-rsa "), made
    added = servers.run(KEY_ADD, "a", key=made["deploy_stdout"].strip())
    assert added["deploy_status_code"] == 0, added
    logged_in = servers.run(SSH.format(target="server-a"), "b")
    assert logged_in["deploy_status_code"] == 0, logged_in
    assert logged_in["deploy_stdout"] == "server-a\n"


HOST_KEYS = "#!/bin/sh\ncat /etc/ssh/ssh_host_ed25519_key.pub 2>/dev/null || echo none\n"


def test_a_server_has_host_keys_of_its_own_once_reached_and_never_the_hosts(servers: TwoServers) -> None:
    hosts_key = Path("/etc/ssh/ssh_host_ed25519_key.pub")
    assert servers.run(HOST_KEYS, "a")["deploy_stdout"] == "none\n"  # not reached yet: none made
    made = servers.run(KEY_GEN, "b")
    servers.run(KEY_ADD, "a", key=made["deploy_stdout"].strip())
    assert servers.run(SSH.format(target="server-a"), "b")["deploy_status_code"] == 0
    own = servers.run(HOST_KEYS, "a")["deploy_stdout"]
    assert own.startswith("ssh-ed25519 ")
    if hosts_key.is_file():
        assert own != hosts_key.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("refused", "Connection closed"),  # offered, but the network's verdict is no
        (ABSENT, "Network is unreachable"),  # an address the sandbox's network does not hold
        ("127.0.0.1", "Connection refused"),  # the sandbox's own loopback, not the host's
    ],
)
def test_what_the_network_does_not_let_through_is_unreachable(
    servers: TwoServers, target: str, said: str
) -> None:
    servers.run(KEY_GEN, "b")
    refused = servers.run(SSH.format(target=target), "b")
    assert refused["deploy_status_code"] == 255, refused
    assert said in refused["deploy_stderr"]


@pytest.fixture
def corpus_world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url)
    world.cloud.create("keypairs", {"name": KEY, "public_key": PUBLIC_KEY})
    network = world.cloud.create("networks", {"name": NETWORK})
    subnet = {"name": f"{NETWORK}-subnet", "network_id": network["id"], "cidr": "10.0.0.0/24"}
    world.cloud.create("subnets", subnet)
    for name in DEFAULT_IMAGES:
        world.cloud.create("images", {"name": name})
    yield world
    world.close()


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the corpus is not at {CORPUS}")
def test_the_corpus_ssh_copy_id_example_converges_server_b_reaching_server_a(
    corpus_world: SoftwareWorld, tmp_path: Path, sshd: str
) -> None:
    corpus_world.commit({"README": "corpus"})
    agents = agents_for(corpus_world, tmp_path / "agents")
    template = f"{EXAMPLES}/example-ssh-copy-id.yaml"
    try:
        assert (
            converge(corpus_world, template, {"key_name": KEY, "private_net": NETWORK})
            is StackStatus.CONVERGED
        )
    finally:
        agents.stop()
    (server_a,) = [body for body in corpus_world.cloud.items("servers") if "server_a" in body["name"]]
    # its `target` (server_a's `hostname` output) ends in a newline, so `ssh` opens a login shell
    # (motd and all) that reads `hostname` from the script's here-document, as on a VM
    stdout = corpus_world.outputs("corpus")["do_key_test_stdout"]
    assert stdout.splitlines()[-1] == hostname_of(server_a["name"])
