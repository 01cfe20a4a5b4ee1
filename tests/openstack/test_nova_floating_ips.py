"""OS::Nova::FloatingIP and OS::Nova::FloatingIPAssociation against the simulated cloud over HTTP:
Neutron floating IPs under Nova's property names, as Heat serves them."""

from __future__ import annotations

import pytest

from providers.interface import Permanent
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import FLAVOR, IMAGE, given_a_network, marker

FLOATING_IP = "OS::Nova::FloatingIP"
ASSOCIATION = "OS::Nova::FloatingIPAssociation"


def test_a_floating_ip_from_the_default_pool_is_associated_with_a_servers_port(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    server = sim.provider.create(
        "OS::Nova::Server",
        {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]},
        marker("web"),
    )
    sim.clock.advance(60)
    address = marker("address")

    floating = sim.provider.create(FLOATING_IP, {}, address)
    association = sim.provider.create(
        ASSOCIATION, {"server_id": server.physical_id, "floating_ip": floating.physical_id}, marker("assoc")
    )

    public = sim.provider.connection.network.find_network("public")
    seen = sim.provider.observe(FLOATING_IP, [floating.physical_id])[floating.physical_id]
    assert seen.properties == {"pool": public.id} and seen.marker == address
    assert seen.attributes["ip"] and seen.attributes["ip"].startswith("172.24.4.")
    assert sim.provider.observe(ASSOCIATION, [association.physical_id])[
        association.physical_id
    ].properties == {
        "server_id": server.physical_id,
        "floating_ip": floating.physical_id,
    }
    assert sim.provider.find_by_marker(FLOATING_IP, address) is not None

    sim.provider.delete(ASSOCIATION, association.physical_id)
    sim.provider.delete(FLOATING_IP, floating.physical_id)
    assert sim.provider.observe(FLOATING_IP, [floating.physical_id]) == {}
    assert undocumented_requests(sim) == []


def test_a_server_without_a_port_cannot_take_a_floating_ip_and_says_so(sim: CloudUnderTest) -> None:
    floating = sim.provider.create(FLOATING_IP, {"pool": "public"}, marker("address"))

    with pytest.raises(Permanent, match="has no port"):
        sim.provider.create(
            ASSOCIATION, {"server_id": "no-such-server", "floating_ip": floating.physical_id}, marker("a")
        )
