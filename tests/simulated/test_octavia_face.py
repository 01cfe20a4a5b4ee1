"""Octavia's HTTP face, driven by openstacksdk's own load_balancer proxy and resource classes:
the catalog entry, version discovery, PENDING_CREATE -> ACTIVE, the 409 of an immutable load
balancer in Octavia's error body, nested members, and the cascade delete."""

from __future__ import annotations

import openstack
import pytest
from openstack import exceptions

from providers.simulated.http.embedded import ServedCloud
from timekeeping.testing import SteppedClock

Connection = openstack.connection.Connection


def a_subnet(connection: Connection) -> str:
    network = connection.network.create_network(name="lb-net")
    return str(connection.network.create_subnet(network_id=network.id, cidr="10.9.0.0/24", ip_version=4).id)


def test_the_catalog_offers_load_balancing_under_its_versioned_endpoint(connection: Connection) -> None:
    assert str(connection.endpoint_for("load-balancer")).endswith("/load-balancer")
    assert str(connection.load_balancer.get_endpoint()).rstrip("/").endswith(("/v2", "/v2.0"))


def test_a_load_balancer_tree_through_the_sdks_own_resources(
    served: ServedCloud, connection: Connection, clock: SteppedClock
) -> None:
    lb = connection.load_balancer.create_load_balancer(name="front", vip_subnet_id=a_subnet(connection))
    assert lb.provisioning_status == "PENDING_CREATE" and lb.vip_address == "10.9.0.2"

    with pytest.raises(exceptions.ConflictException, match="is immutable and cannot be updated"):
        connection.load_balancer.create_listener(loadbalancer_id=lb.id, protocol="HTTP", protocol_port=80)

    clock.advance(10)
    assert connection.load_balancer.get_load_balancer(lb.id).operating_status == "ONLINE"
    listener = connection.load_balancer.create_listener(
        loadbalancer_id=lb.id, protocol="HTTP", protocol_port=80
    )
    clock.advance(10)
    pool = connection.load_balancer.create_pool(
        listener_id=listener.id, protocol="HTTP", lb_algorithm="ROUND_ROBIN"
    )
    clock.advance(10)
    member = connection.load_balancer.create_member(pool, address="10.9.0.20", protocol_port=8080)
    clock.advance(10)
    assert [m.id for m in connection.load_balancer.members(pool)] == [member.id]
    assert connection.load_balancer.get_listener(listener.id).default_pool_id == pool.id

    with pytest.raises(exceptions.BadRequestException, match="it has children"):
        connection.load_balancer.delete_load_balancer(lb.id)
    connection.load_balancer.delete_load_balancer(lb.id, cascade=True)
    assert connection.load_balancer.get_load_balancer(lb.id).provisioning_status == "PENDING_DELETE"
    clock.advance(10)
    assert list(connection.load_balancer.load_balancers()) == []
    assert served.cloud.count("members") == 0
    assert [port for port in connection.network.ports() if port.device_owner == "Octavia"] == []
