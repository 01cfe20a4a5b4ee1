"""Held-back check: every request the provider sends is one docs/openstack-api.md documents.

One scenario takes every resource type through create, update, observe, find-by-marker, replace
and delete against the simulated cloud; each request is recorded on the wire and must match a
documented row (method, path under the service's endpoint, body keys within the row's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from providers.interface import LiveResource
from providers.openstack.request_log import SentRequest
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import SERVICES, documented_calls, service_of, service_prefixes
from tests.openstack.scenario import FLAVOR, IMAGE, given_a_network, marker
from tests.openstack.test_load_balancer_types import SETTLE


def test_every_request_sent_is_a_documented_one(sim: CloudUnderTest) -> None:
    every_type_lives_its_life(sim)
    prefixes = service_prefixes(sim)
    calls = documented_calls()

    undocumented = []
    services_seen = set()
    for sent in sim.log.requests:
        service, relative = service_of(sent, prefixes)
        if service is None or (relative in ("", "/") and sent.method == "GET" and not sent.query_keys):
            continue  # identity and version discovery: the SDK's, not the provider's
        services_seen.add(service)
        if not any(call.allows(service, sent, relative) for call in calls):
            undocumented.append(f"{service} {sent.method} {relative} {sorted(sent.body_keys)}")

    assert undocumented == []
    assert services_seen == set(SERVICES)


def test_the_check_catches_an_undocumented_call(sim: CloudUnderTest) -> None:
    calls = documented_calls()
    sent = SentRequest("POST", "/servers/x/action", frozenset(), frozenset({"os-start"}), 202)
    assert not any(call.allows("compute", sent, "/servers/x/action") for call in calls)
    sent = SentRequest("PATCH", "/networks/x", frozenset(), frozenset(), 200)
    assert not any(call.allows("network", sent, "/networks/x") for call in calls)


def every_type_lives_its_life(sim: CloudUnderTest) -> None:
    provider = sim.provider
    network = given_a_network(provider)
    provider.update(
        "OS::Neutron::Net", network.net.physical_id, {"name": "private", "tags": ["x"]}, frozenset({"tags"})
    )
    provider.update(
        "OS::Neutron::Subnet", network.subnet.physical_id, {"name": "renamed"}, frozenset({"name"})
    )
    provider.update(
        "OS::Neutron::Subnet", network.subnet.physical_id, {"name": "private-subnet"}, frozenset({"name"})
    )
    group = provider.create(
        "OS::Neutron::SecurityGroup",
        {"name": "web", "rules": [{"protocol": "tcp", "port_range_min": 80, "port_range_max": 80}]},
        marker("web_sg"),
    )
    provider.update(
        "OS::Neutron::SecurityGroup",
        group.physical_id,
        {"name": "web", "rules": [{"protocol": "tcp", "port_range_min": 443, "port_range_max": 443}]},
        frozenset({"rules"}),
    )
    rule = provider.create(
        "OS::Neutron::SecurityGroupRule",
        {"security_group": group.physical_id, "protocol": "icmp"},
        marker("icmp"),
    )
    port = provider.create(
        "OS::Neutron::Port", {"network": "private", "security_groups": ["web"]}, marker("port")
    )
    provider.update(
        "OS::Neutron::Port", port.physical_id, {"network": "private", "name": "p"}, frozenset({"name"})
    )
    router = provider.create(
        "OS::Neutron::Router", {"external_gateway_info": {"network": "public"}}, marker("router")
    )
    interface = provider.create(
        "OS::Neutron::RouterInterface",
        {"router": router.physical_id, "subnet": network.subnet.physical_id},
        marker("router_if"),
    )
    floating = provider.create("OS::Neutron::FloatingIP", {"floating_network": "public"}, marker("fip"))
    association = provider.create(
        "OS::Neutron::FloatingIPAssociation",
        {"floatingip_id": floating.physical_id, "port_id": port.physical_id},
        marker("fip_assoc"),
    )
    key = provider.create("OS::Nova::KeyPair", {"name": "ops"}, marker("key"))
    server_group = provider.create("OS::Nova::ServerGroup", {"policies": ["anti-affinity"]}, marker("group"))
    server_properties = {
        "flavor": FLAVOR,
        "image": IMAGE,
        "networks": [{"network": "private"}],
        "key_name": "ops",
        "metadata": {"a": "b"},
        "scheduler_hints": {"group": server_group.physical_id},
    }
    server = provider.create("OS::Nova::Server", server_properties, marker("server"))
    volume = provider.create("OS::Cinder::Volume", {"size": 1, "metadata": {"a": "b"}}, marker("volume"))
    sim.clock.advance(60)
    provider.update(
        "OS::Nova::Server",
        server.physical_id,
        {**server_properties, "name": "s", "metadata": {"c": "d"}, "tags": ["t"], "flavor": "m1.small"},
        frozenset({"name", "metadata", "tags", "flavor"}),
    )
    provider.update(
        "OS::Cinder::Volume",
        volume.physical_id,
        {"size": 2, "name": "v", "metadata": {}},
        frozenset({"size", "name", "metadata"}),
    )
    sim.clock.advance(60)
    attachment = provider.create(
        "OS::Cinder::VolumeAttachment",
        {"instance_uuid": server.physical_id, "volume_id": volume.physical_id},
        marker("attach"),
    )
    container = provider.create(
        "OS::Swift::Container",
        {"X-Container-Meta": {"a": "b"}, "X-Account-Meta": {"c": "d"}, "PurgeOnDelete": True},
        marker("container"),
    )
    sim.cloud.update("containers", container.physical_id, {"put_object": ("dir/object", 1)})
    image_properties = {
        "location": "https://download.example.org/image.qcow2",
        "disk_format": "qcow2",
        "container_format": "bare",
        "tags": ["a"],
        "os_distro": "fedora",
    }
    image = provider.create("OS::Glance::WebImage", image_properties, marker("image"))
    zone = provider.create(
        "OS::Designate::Zone", {"name": "example.org.", "email": "a@example.org"}, marker("z")
    )
    sim.clock.advance(60)
    provider.update("OS::Designate::Zone", zone.physical_id, {"ttl": 60}, frozenset({"ttl"}))
    www = marker("www")
    record_set = provider.create(
        "OS::Designate::RecordSet",
        {"zone": "example.org.", "name": "www.example.org.", "type": "A", "records": ["192.0.2.1"]},
        www,
    )
    provider.create(  # a create repeated after a crash adopts what the first one made
        "OS::Designate::RecordSet",
        {"zone": zone.physical_id, "name": "www.example.org.", "type": "A", "records": ["192.0.2.1"]},
        www,
    )
    sim.clock.advance(60)
    provider.update("OS::Designate::RecordSet", record_set.physical_id, {"ttl": 60}, frozenset({"ttl"}))
    secret = provider.create(
        "OS::Barbican::Secret", {"payload": "p", "payload_content_type": "text/plain"}, marker("secret")
    )
    order = provider.create(
        "OS::Barbican::Order", {"type": "key", "algorithm": "aes", "bit_length": 256}, marker("order")
    )
    queue = provider.create("OS::Zaqar::Queue", {}, marker("queue"))
    provider.update("OS::Zaqar::Queue", queue.physical_id, {"metadata": {"c": "d"}}, frozenset({"metadata"}))
    rsa_container = provider.create(
        "OS::Barbican::RSAContainer", {"private_key_ref": secret.physical_id}, marker("rsa_container")
    )
    provider.update(
        "OS::Glance::WebImage",
        image.physical_id,
        {**image_properties, "tags": ["b"], "os_distro": None},
        frozenset({"tags", "os_distro"}),
    )
    sim.clock.advance(60)

    everything = {
        "OS::Neutron::Net": network.net,
        "OS::Neutron::Subnet": network.subnet,
        "OS::Neutron::SecurityGroup": group,
        "OS::Neutron::SecurityGroupRule": rule,
        "OS::Neutron::Port": port,
        "OS::Neutron::Router": router,
        "OS::Neutron::RouterInterface": interface,
        "OS::Neutron::FloatingIP": floating,
        "OS::Neutron::FloatingIPAssociation": association,
        "OS::Nova::KeyPair": key,
        "OS::Nova::ServerGroup": server_group,
        "OS::Nova::Server": server,
        "OS::Cinder::Volume": volume,
        "OS::Cinder::VolumeAttachment": attachment,
        "OS::Swift::Container": container,
        "OS::Glance::WebImage": image,
        "OS::Designate::Zone": zone,
        "OS::Designate::RecordSet": record_set,
        "OS::Barbican::RSAContainer": rsa_container,
        "OS::Barbican::Secret": secret,
        "OS::Barbican::Order": order,
        "OS::Zaqar::Queue": queue,
    }
    everything.update(load_balancing_lives_its_life(sim, network.subnet.physical_id))
    for type_name, live in everything.items():
        assert live.physical_id in provider.observe(type_name, [live.physical_id]), type_name
        if live.marker is not None:
            provider.find_by_marker(type_name, live.marker)
    for type_name, live in reversed(everything.items()):
        provider.delete(type_name, live.physical_id)
        sim.clock.advance(60)


def load_balancing_lives_its_life(sim: CloudUnderTest, subnet_id: str) -> dict[str, LiveResource]:
    """Every Octavia type created (each once its load balancer is ACTIVE again) and updated."""
    provider = sim.provider
    made: dict[str, LiveResource] = {}
    steps: list[tuple[str, Callable[[], dict[str, Any]], dict[str, Any]]] = [
        ("OS::Octavia::Flavor", lambda: {"flavor_profile": "amphora-single"}, {"enabled": False}),
        ("OS::Octavia::LoadBalancer", lambda: {"vip_subnet": subnet_id}, {"description": "front"}),
        (
            "OS::Octavia::Listener",
            lambda: {
                "loadbalancer": made["OS::Octavia::LoadBalancer"].physical_id,
                "protocol": "HTTP",
                "protocol_port": 80,
            },
            {"connection_limit": 9},
        ),
        (
            "OS::Octavia::Pool",
            lambda: {
                "listener": made["OS::Octavia::Listener"].physical_id,
                "protocol": "HTTP",
                "lb_algorithm": "ROUND_ROBIN",
            },
            {"lb_algorithm": "SOURCE_IP"},
        ),
        (
            "OS::Octavia::PoolMember",
            lambda: {
                "pool": made["OS::Octavia::Pool"].physical_id,
                "address": "10.0.0.50",
                "protocol_port": 80,
            },
            {"weight": 3},
        ),
        (
            "OS::Octavia::HealthMonitor",
            lambda: {
                "pool": made["OS::Octavia::Pool"].physical_id,
                "type": "TCP",
                "delay": 5,
                "timeout": 3,
                "max_retries": 3,
            },
            {"delay": 6},
        ),
        (
            "OS::Octavia::L7Policy",
            lambda: {"listener": made["OS::Octavia::Listener"].physical_id, "action": "REJECT"},
            {"position": 1},
        ),
        (
            "OS::Octavia::L7Rule",
            lambda: {
                "l7policy": made["OS::Octavia::L7Policy"].physical_id,
                "type": "PATH",
                "compare_type": "EQUAL_TO",
                "value": "/x",
            },
            {"invert": True},
        ),
    ]
    for type_name, properties, changed in steps:
        made[type_name] = provider.create(type_name, properties(), marker(type_name.rsplit("::", 1)[-1]))
        sim.clock.advance(SETTLE)
        provider.update(
            type_name, made[type_name].physical_id, {**properties(), **changed}, frozenset(changed)
        )
        sim.clock.advance(SETTLE)
    return made
