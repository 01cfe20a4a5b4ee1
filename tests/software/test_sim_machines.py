"""The simulated cloud's servers as machines: their identity, and the network's verdict on a connection.

Given servers on the simulated cloud's networks with security groups, when a server asks to reach
an address and TCP port, then it reaches the neighbour holding that address only where both are on
one network and the security groups let the connection out of one and into the other; an address
no server of this cloud holds (the host's own included) is never reached. A server is its
host name (Nova's, from its name), its image's default user (`ec2-user` unless the image names
another) with its key pair's key, and its neighbours by name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.settings import CloudSettings
from reconciler.agent.sandbox_machine import Machine, hostname_of
from reconciler.daemon.sim_hypervisor import CloudHypervisor
from reconciler.daemon.sim_machines import (
    Attachment,
    Attachments,
    Neighbourhood,
    attachments,
    machine_document,
    machine_from,
    machine_of,
    reachable,
)

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test"


class Network:
    """A simulated cloud with two networks, an ssh-only group and a web-only group."""

    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud
        self.networks = {
            name: self._network(name, cidr)
            for name, cidr in (("private", "10.0.0.0/24"), ("other", "10.9.0.0/24"))
        }
        self._group("ssh", 22)
        self._group("web", 80)
        cloud.create("keypairs", {"name": "mine", "public_key": KEY})
        self.image = cloud.create("images", {"name": "debian", "default_user": "debian"})

    def _network(self, name: str, cidr: str) -> str:
        network = self.cloud.create("networks", {"name": name})
        self.cloud.create("subnets", {"name": f"{name}-subnet", "network_id": network["id"], "cidr": cidr})
        return str(network["id"])

    def _group(self, name: str, port: int) -> None:
        group = self.cloud.create("security_groups", {"name": name})
        rule = {"direction": "ingress", "protocol": "tcp", "port_range_min": port, "port_range_max": port}
        self.cloud.create("security_group_rules", {"security_group_id": group["id"], **rule})

    def server(
        self, name: str, network: str = "private", groups: tuple[str, ...] = ("ssh",), **more: Any
    ) -> Any:
        image = next(iter(self.cloud.items("images")))["id"]
        request = {"name": name, "flavorRef": "2", "imageRef": image, **more}
        request["networks"] = [{"uuid": self.networks[network]}]
        request["security_groups"] = [{"name": group} for group in groups]
        server = self.cloud.create("servers", request)
        self.cloud.set_status("servers", server["id"], "ACTIVE")
        return self.cloud.get("servers", server["id"])

    def address(self, server: Any) -> str:
        (entries,) = server["addresses"].values()
        return str(entries[0]["addr"])


@pytest.fixture
def network(tmp_path: Path) -> Iterator[Network]:
    yield Network(SimulatedCloud.open(tmp_path / "cloud.json"))


@pytest.mark.parametrize(
    ("target_network", "target_groups", "port", "reached"),
    [
        ("private", ("ssh",), 22, True),
        ("private", ("ssh",), 80, False),  # no rule lets port 80 in
        ("private", ("web",), 22, False),  # the target's groups let only the web in
        ("private", (), 22, True),  # a port with no security group filters nothing
        ("other", ("ssh",), 22, False),  # another network
    ],
)
def test_a_server_reaches_a_neighbour_only_as_network_and_security_groups_allow(
    network: Network, target_network: str, target_groups: tuple[str, ...], port: int, reached: bool
) -> None:
    source = network.server("stack-server_b-1")
    target = network.server("stack-server_a-2", target_network, target_groups)
    found = reachable(network.cloud, source["id"], network.address(target), port)
    assert found == (target["id"] if reached else None)


@pytest.mark.parametrize("address", ["127.0.0.1", "10.0.0.250", "192.0.2.1"])
def test_an_address_no_server_of_the_cloud_holds_is_never_reached(network: Network, address: str) -> None:
    source = network.server("stack-server_b-1")
    assert reachable(network.cloud, source["id"], address, 22) is None


def test_a_server_is_its_host_name_its_images_default_user_its_key_and_its_neighbours(
    network: Network,
) -> None:
    server = network.server("Stack-server_A-x1", key_name="mine")
    neighbour = network.server("stack-server_b-x2")
    network.server("stack-server_c-x3", "other")
    machine = machine_of(network.cloud, server, attachments(network.cloud))
    assert machine.hostname == "stack-server-a-x1"
    assert machine.default_user == "ec2-user"  # the images seeded name no user of their own
    assert machine.authorized_keys == (KEY,)
    assert machine.hosts == ((network.address(neighbour), "stack-server-b-x2"),)


def test_every_servers_neighbours_are_the_entries_of_every_other_port_on_its_networks(
    network: Network,
) -> None:
    names = ("alpha", "Beta_1", "gamma", "delta")
    servers = [network.server(name) for name in names]
    ports = st.tuples(
        st.sampled_from([str(server["id"]) for server in servers]),
        st.sampled_from(["n1", "n2", "n3"]),
        st.lists(st.sampled_from(["10.0.0.5", "10.0.0.6", "10.0.0.7", "fd00::5"]), max_size=3),
    )

    @settings(max_examples=300, deadline=None)
    @given(st.lists(ports, max_size=12))
    def check(drawn: list[tuple[str, str, list[str]]]) -> None:
        ports = [Attachment(server_id, net, tuple(addresses), ()) for server_id, net, addresses in drawn]
        neighbourhood = Neighbourhood(network.cloud, ports)
        for server in servers:
            server_id = str(server["id"])
            networks = {port.network_id for port in ports if port.server_id == server_id}
            hosts = tuple(
                (address, hostname_of(str(server_of[port.server_id]["name"])))
                for port in ports
                if port.network_id in networks and port.server_id != server_id
                for address in port.addresses
                if ":" not in address
            )
            machine = neighbourhood.machine(server)
            assert machine.hosts == hosts
            assert machine.peers == tuple(sorted({address for address, _ in hosts}))
            # what crosses to the agents' process, cut from the network's text, says the same
            assert neighbourhood.document(server) == machine_document(machine)

    server_of = {str(server["id"]): server for server in servers}
    check()


@pytest.mark.parametrize(
    "machine",
    [
        Machine("lonely"),
        Machine(
            "minion-7",
            "debian",
            (KEY,),
            (("10.0.0.5", "minion-1"), ("10.0.0.6", "kube-master.0"), ("10.0.0.6", "alias")),
            ("10.0.0.5", "10.0.0.6"),
        ),
    ],
)
def test_a_machine_crosses_to_the_agents_process_as_it_is(machine: Machine) -> None:
    wire = json.loads(json.dumps(machine_document(machine)))
    assert machine_from(wire) == machine


def test_an_image_names_its_default_user(network: Network) -> None:
    server = network.server("debian-box", imageRef=network.image["id"])
    assert machine_of(network.cloud, server, attachments(network.cloud)).default_user == "debian"


def test_neighbours_asked_again_follow_every_change_of_the_network(network: Network) -> None:
    kept = Attachments()  # as the hypervisor keeps them between its machines' questions
    server = network.server("server-a")
    neighbour = network.server("server-b")
    assert machine_of(network.cloud, server, kept.of(network.cloud)).hosts == (
        (network.address(neighbour), "server-b"),
    )
    newcomer = network.server("server-c")
    network.cloud.delete("servers", neighbour["id"])
    assert machine_of(network.cloud, server, kept.of(network.cloud)).hosts == (
        (network.address(newcomer), "server-c"),
    )
    (port,) = [p for p in network.cloud.items("ports") if p.get("device_id") == newcomer["id"]]
    network.cloud.update("ports", port["id"], {"security_groups": []})
    assert kept.of(network.cloud) == attachments(network.cloud)
    assert [p.groups for p in kept.of(network.cloud) if p.server_id == newcomer["id"]] == [()]


def test_the_hypervisor_answers_from_one_neighbourhood_until_the_cloud_changes(
    network: Network, tmp_path: Path
) -> None:
    hypervisor = CloudHypervisor(lambda: network.cloud, tmp_path / "fleet")
    first, second = network.server("server-a"), network.server("server-b")
    asked = hypervisor.machine(first["id"])
    assert asked is not None and asked.hosts == ((network.address(second), "server-b"),)
    assert hypervisor.machine(first["id"]) == asked  # nothing changed: the same answer
    other = hypervisor.machine(second["id"])
    assert other is not None and other.hosts == ((network.address(first), "server-a"),)

    network.cloud.update("servers", second["id"], {"name": "renamed"})
    third = network.server("server-c", "other")
    asked = hypervisor.machine(first["id"])
    assert asked is not None and asked.hosts == ((network.address(second), "renamed"),)
    on_other = hypervisor.machine(third["id"])
    assert on_other is not None and on_other.hosts == () and on_other.hostname == "server-c"
    network.cloud.delete("servers", second["id"])
    assert hypervisor.machine(second["id"]) is None
    asked = hypervisor.machine(first["id"])
    assert asked is not None and asked.hosts == ()


def test_a_server_due_to_be_active_is_a_neighbour_once_its_time_has_come(tmp_path: Path) -> None:
    clock = [0.0]
    cloud = SimulatedCloud.open(
        tmp_path / "cloud.json", CloudSettings(time_to_active=2.0), clock=lambda: clock[0]
    )
    network = Network(cloud)
    hypervisor = CloudHypervisor(lambda: cloud, tmp_path / "fleet")
    first = network.server("server-a")
    image = next(iter(cloud.items("images")))["id"]
    request = {"name": "server-b", "flavorRef": "2", "imageRef": image}
    booting = cloud.create("servers", {**request, "networks": [{"uuid": network.networks["private"]}]})
    asked = hypervisor.machine(first["id"])
    assert asked is not None and asked.hosts == ()
    clock[0] = 5.0  # no call to the cloud meanwhile: the server became ACTIVE on its own time
    asked = hypervisor.machine(first["id"])
    assert asked is not None and [name for _, name in asked.hosts] == ["server-b"], booting
