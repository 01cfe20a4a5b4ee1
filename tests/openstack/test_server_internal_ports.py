"""A server `networks` entry naming only a subnet, against the simulated cloud over HTTP: the
provider makes the server a port on that subnet, as Heat does, and the port lives and dies with
the server and its entry."""

from __future__ import annotations

from typing import Any

import pytest

from providers.interface import ProviderError
from providers.internal_ports import INTERNAL_PORT_TAG
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import FLAVOR, IMAGE, given_a_network, marker

SERVER = "OS::Nova::Server"


def internal_ports(sim: CloudUnderTest) -> list[dict[str, Any]]:
    return sim.cloud.list("ports", tags=[INTERNAL_PORT_TAG])


def test_a_subnet_entry_gets_a_port_on_that_subnet_which_goes_with_the_server(sim: CloudUnderTest) -> None:
    given = given_a_network(sim.provider)
    created = sim.provider.create(
        SERVER,
        {"flavor": FLAVOR, "image": IMAGE, "networks": [{"subnet": given.subnet.physical_id}]},
        marker("server"),
    )

    [port] = internal_ports(sim)
    assert port["name"] == "server-port-0"
    assert port["device_id"] == created.physical_id
    assert port["network_id"] == given.net.physical_id
    assert [fixed["subnet_id"] for fixed in port["fixed_ips"]] == [given.subnet.physical_id]

    sim.provider.delete(SERVER, created.physical_id)
    assert internal_ports(sim) == []
    assert undocumented_requests(sim) == []


def test_a_repeated_create_adopts_the_port_an_unfinished_one_made(sim: CloudUnderTest) -> None:
    given = given_a_network(sim.provider)
    server = marker("server")
    properties = {
        "flavor": FLAVOR,
        "image": IMAGE,
        "networks": [{"subnet": "private-subnet", "fixed_ip": "10.0.0.50"}],
    }
    with pytest.raises(ProviderError, match=r"no flavor named 'm1\.none'"):
        sim.provider.create(SERVER, {**properties, "flavor": "m1.none"}, server)

    again = sim.provider.create(SERVER, properties, server)

    [port] = internal_ports(sim)
    assert port["device_id"] == again.physical_id
    assert port["fixed_ips"] == [{"subnet_id": given.subnet.physical_id, "ip_address": "10.0.0.50"}]


def test_a_changed_subnet_entry_replaces_its_port_and_a_kept_one_keeps_it(sim: CloudUnderTest) -> None:
    given = given_a_network(sim.provider)
    sim.provider.create("OS::Neutron::Net", {"name": "other"}, marker("other"))
    other = sim.provider.create(
        "OS::Neutron::Subnet", {"network": "other", "cidr": "10.5.0.0/24"}, marker("other_subnet")
    )
    properties = {"flavor": FLAVOR, "image": IMAGE, "networks": [{"subnet": given.subnet.physical_id}]}
    created = sim.provider.create(SERVER, properties, marker("server"))
    [kept] = internal_ports(sim)

    moved = {
        **properties,
        "networks": [{"subnet": given.subnet.physical_id}, {"subnet": other.physical_id}],
    }
    sim.provider.update(SERVER, created.physical_id, moved, frozenset({"networks"}))
    after_adding = {port["id"]: port for port in internal_ports(sim)}
    sim.provider.update(
        SERVER,
        created.physical_id,
        {**properties, "networks": [{"subnet": other.physical_id}]},
        frozenset({"networks"}),
    )
    after_moving = internal_ports(sim)

    assert kept["id"] in after_adding and len(after_adding) == 2
    assert [port["network_id"] for port in after_moving] == [other.attributes["network_id"]]
    assert after_moving[0]["id"] in after_adding and after_moving[0]["device_id"] == created.physical_id
    assert sim.cloud.list("ports", ids=[kept["id"]]) == []
    assert undocumented_requests(sim) == []
