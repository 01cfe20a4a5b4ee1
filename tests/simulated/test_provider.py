"""SimulatedProvider: the provider interface on the simulated cloud, type by type."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from providers.catalog import CATALOG
from providers.interface import (
    LiveStatus,
    Marker,
    NotFound,
    Permanent,
    Provider,
    ProviderError,
    Retryable,
)
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.faults import CallFault
from providers.simulated.provider import ADAPTERS, SimulatedProvider
from providers.simulated.settings import CloudSettings
from timekeeping.testing import SteppedClock

IMAGE = "cirros-0.6.2-x86_64-disk"


def marker(resource: str) -> Marker:
    return Marker(stack="app", resource=resource, record_id=f"rec-{resource}")


def make_provider(clock: SteppedClock | None = None, **settings: Any) -> SimulatedProvider:
    clock = clock or SteppedClock()
    cloud = SimulatedCloud(
        CloudSettings(**settings), clock=clock.now, sleep=clock.sleep, random_source=random.Random(3)
    )
    return SimulatedProvider(cloud)


class Fixture:
    """A network, subnet, router, server and volume to hang the other types on."""

    def __init__(self, provider: SimulatedProvider) -> None:
        self.provider = provider
        create = provider.create
        self.net = create("OS::Neutron::Net", {"name": "private"}, marker("net")).physical_id
        self.subnet = create(
            "OS::Neutron::Subnet", {"network": self.net, "cidr": "10.1.0.0/24"}, marker("subnet")
        ).physical_id
        self.router = create(
            "OS::Neutron::Router", {"external_gateway_info": {"network": "public"}}, marker("router")
        ).physical_id
        self.port = create("OS::Neutron::Port", {"network": "private"}, marker("port")).physical_id
        self.group = create("OS::Neutron::SecurityGroup", {"name": "web"}, marker("sg")).physical_id
        self.server = create(
            "OS::Nova::Server", {"flavor": "m1.small", "image": IMAGE, "networks": [{"network": self.net}]},
            marker("server"),
        ).physical_id  # fmt: skip
        self.volume = create("OS::Cinder::Volume", {"size": 1}, marker("volume")).physical_id
        self.floating = create(
            "OS::Neutron::FloatingIP", {"floating_network": "public"}, marker("fip")
        ).physical_id


# type, properties (given a Fixture), a changed property set in place, the value it changes to
CASES: list[tuple[str, Any, str, Any]] = [
    ("OS::Nova::Server", lambda f: {"flavor": "m1.tiny", "image": IMAGE, "networks": [{"port": f.port}]},
     "flavor", "m1.medium"),
    ("OS::Nova::KeyPair", lambda f: {"name": "deploy"}, "", None),
    ("OS::Nova::ServerGroup", lambda f: {"policies": ["affinity"]}, "", None),
    ("OS::Neutron::Net", lambda f: {"name": "n2"}, "name", "n3"),
    ("OS::Neutron::Subnet", lambda f: {"network": f.net, "cidr": "10.2.0.0/24"},
     "dns_nameservers", ["8.8.8.8"]),
    ("OS::Neutron::Port", lambda f: {"network": f.net, "security_groups": [f.group]}, "name", "renamed"),
    ("OS::Neutron::Router", lambda f: {"name": "r2"}, "name", "r3"),
    ("OS::Neutron::RouterInterface", lambda f: {"router": f.router, "subnet": f.subnet}, "", None),
    ("OS::Neutron::SecurityGroup", lambda f: {"name": "sg2", "rules": [
        {"port_range_min": 22, "port_range_max": 22, "protocol": "tcp"}]}, "rules", [{"protocol": "icmp"}]),
    ("OS::Neutron::SecurityGroupRule", lambda f: {"security_group": f.group, "port_range_min": 80,
     "port_range_max": 80}, "", None),
    ("OS::Neutron::FloatingIP", lambda f: {"floating_network": "public"}, "port_id", "PORT"),
    ("OS::Neutron::FloatingIPAssociation", lambda f: {"floatingip_id": f.floating, "port_id": f.port},
     "fixed_ip_address", None),
    ("OS::Cinder::Volume", lambda f: {"size": 2, "metadata": {"role": "db"}}, "size", 3),
    ("OS::Cinder::VolumeAttachment", lambda f: {"instance_uuid": f.server, "volume_id": f.volume}, "", None),
]  # fmt: skip


def test_the_provider_serves_every_catalog_type_and_meets_the_protocol() -> None:
    provider = make_provider()
    assert isinstance(provider, Provider)
    assert dict(provider.resource_types()) == dict(CATALOG)


@pytest.mark.parametrize(
    ("type_name", "properties", "changed", "value"), CASES, ids=[case[0] for case in CASES]
)
def test_create_observe_update_delete(type_name: str, properties: Any, changed: str, value: Any) -> None:
    provider = make_provider()
    fixture = Fixture(provider)
    desired: dict[str, Any] = properties(fixture)

    created = provider.create(type_name, desired, marker("subject"))
    assert created.type == type_name
    assert created.status is LiveStatus.READY
    observed = provider.observe(type_name, [created.physical_id, "missing-id"])
    assert list(observed) == [created.physical_id]

    if changed:
        value = fixture.port if value == "PORT" else value
        updated = provider.update(
            type_name, created.physical_id, {**desired, changed: value}, frozenset({changed})
        )
        assert updated.physical_id == created.physical_id
        if value is not None and changed != "rules":
            assert updated.properties[changed] == value

    provider.delete(type_name, created.physical_id)
    assert provider.observe(type_name, [created.physical_id]) == {}
    with pytest.raises(NotFound):
        provider.delete(type_name, created.physical_id)


@pytest.mark.parametrize(
    "type_name",
    [
        "OS::Nova::Server",
        "OS::Neutron::Net",
        "OS::Neutron::Port",
        "OS::Cinder::Volume",
        "OS::Nova::ServerGroup",
    ],
)
def test_a_resource_is_found_again_by_its_marker(type_name: str) -> None:
    provider = make_provider()
    fixture = Fixture(provider)
    properties = dict(next(case for case in CASES if case[0] == type_name)[1](fixture))
    created = provider.create(type_name, properties, marker("adopt-me"))
    found = provider.find_by_marker(type_name, marker("adopt-me"))
    assert found is not None
    assert found.physical_id == created.physical_id
    assert found.marker == marker("adopt-me")
    assert provider.find_by_marker(type_name, marker("never-created")) is None


def test_server_attributes_name_its_addresses() -> None:
    provider = make_provider()
    fixture = Fixture(provider)
    server = provider.observe("OS::Nova::Server", [fixture.server])[fixture.server]
    assert server.attributes["first_address"] == "10.1.0.3"  # the fixture's port took .2
    assert server.attributes["networks"] == {"private": ["10.1.0.3"]}
    assert server.attributes["addresses"]["private"][0]["OS-EXT-IPS:type"] == "fixed"
    assert "_ports" not in server.attributes["show"]


def test_a_building_server_is_in_progress_until_the_cloud_says_active() -> None:
    clock = SteppedClock()
    provider = make_provider(clock, time_to_active=2.0)
    created = provider.create("OS::Nova::Server", {"flavor": "m1.tiny", "image": IMAGE}, marker("s"))
    assert created.status is LiveStatus.IN_PROGRESS
    clock.advance(2.0)
    assert (
        provider.observe("OS::Nova::Server", [created.physical_id])[created.physical_id].status
        is LiveStatus.READY
    )
    provider.cloud.set_status("servers", created.physical_id, "ERROR")
    assert (
        provider.observe("OS::Nova::Server", [created.physical_id])[created.physical_id].status
        is LiveStatus.FAILED
    )


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (CallFault.SERVER_ERROR, Retryable),
        (CallFault.UNAVAILABLE, Retryable),
        (CallFault.TIMEOUT, Retryable),
        (CallFault.LOST_RESPONSE, Retryable),
        (CallFault.RATE_LIMITED, Retryable),
    ],
)
def test_call_faults_are_retryable(fault: CallFault, error: type[ProviderError]) -> None:
    provider = make_provider()
    provider.cloud.faults.fail_next(fault)
    with pytest.raises(error) as raised:
        provider.create("OS::Neutron::Net", {"name": "n"}, marker("n"))
    assert not (isinstance(raised.value, Retryable) and raised.value.conflict)  # the cloud failed


def test_an_injected_policy_refusal_is_permanent_and_changes_nothing() -> None:
    provider = make_provider()
    net = provider.create("OS::Neutron::Net", {"name": "n"}, marker("n"))
    provider.cloud.faults.fail_next(CallFault.FORBIDDEN, operation="delete")
    with pytest.raises(Permanent, match="Policy does not allow"):
        provider.delete("OS::Neutron::Net", net.physical_id)
    assert net.physical_id in provider.observe("OS::Neutron::Net", [net.physical_id])
    assert provider.cloud.refused["delete"] == 1


def test_a_key_pair_name_taken_by_another_key_fails_at_once() -> None:
    """No retry frees the name: the reason says so instead of a conflict retried to the deadline."""
    provider = make_provider()
    provider.create("OS::Nova::KeyPair", {"name": "deploy"}, marker("first"))
    with pytest.raises(Permanent, match="already exists with another key"):
        provider.create("OS::Nova::KeyPair", {"name": "deploy"}, marker("second"))


def test_retry_after_of_a_429_reaches_the_engine() -> None:
    provider = make_provider()
    provider.cloud.faults.fail_next(CallFault.RATE_LIMITED)
    with pytest.raises(Retryable) as raised:
        provider.observe("OS::Nova::Server", ["x"])
    assert raised.value.after == 1.0


@pytest.mark.parametrize(
    ("type_name", "properties", "message"),
    [
        (
            "OS::Nova::Server",
            {"flavor": "m1.giant", "image": IMAGE},
            r"The Flavor \(m1.giant\) could not be found",
        ),
        (
            "OS::Nova::Server",
            {"flavor": "m1.tiny", "image": "nope"},
            r"The Image \(nope\) could not be found",
        ),
        ("OS::Neutron::Subnet", {"network": "nowhere", "cidr": "10.0.0.0/24"}, r"Network \(nowhere\)"),
        ("OS::Neutron::Subnet", {"network": "public", "cidr": "not-a-cidr"}, "not a valid IP subnet"),
        ("OS::Heat::None", {}, "does not serve OS::Heat::None"),
    ],
)
def test_invalid_requests_are_permanent_with_the_clouds_message(
    type_name: str, properties: Mapping[str, Any], message: str
) -> None:
    with pytest.raises(Permanent, match=message):
        make_provider().create(type_name, properties, marker("bad"))


def test_a_quota_excess_is_permanent_with_the_clouds_message() -> None:
    provider = make_provider(quotas={"servers": 1})
    provider.create("OS::Nova::Server", {"flavor": "m1.tiny", "image": IMAGE}, marker("one"))
    with pytest.raises(Permanent, match="Quota exceeded for servers: limit 1"):
        provider.create("OS::Nova::Server", {"flavor": "m1.tiny", "image": IMAGE}, marker("two"))


def test_a_volume_never_shrinks() -> None:
    provider = make_provider()
    volume = provider.create("OS::Cinder::Volume", {"size": 5}, marker("v"))
    with pytest.raises(Permanent, match="cannot shrink from 5 GiB to 2 GiB"):
        provider.update("OS::Cinder::Volume", volume.physical_id, {"size": 2}, frozenset({"size"}))


def test_a_lost_response_then_a_retry_adopts_instead_of_duplicating() -> None:
    provider = make_provider()
    provider.cloud.faults.fail_next(CallFault.LOST_RESPONSE, operation="create")
    with pytest.raises(Retryable):
        provider.create("OS::Nova::Server", {"flavor": "m1.tiny", "image": IMAGE}, marker("once"))
    adopted = provider.find_by_marker("OS::Nova::Server", marker("once"))
    assert adopted is not None
    assert provider.cloud.count("servers") == 1


def test_re_attaching_an_attached_volume_adopts_the_attachment() -> None:
    provider = make_provider()
    fixture = Fixture(provider)
    properties = {"instance_uuid": fixture.server, "volume_id": fixture.volume}
    first = provider.create("OS::Cinder::VolumeAttachment", properties, marker("a"))
    again = provider.create("OS::Cinder::VolumeAttachment", properties, marker("a"))
    assert first.physical_id == again.physical_id


def test_observe_reads_pages_not_resources() -> None:
    provider = make_provider()
    ids = [provider.create("OS::Neutron::Net", {}, marker(f"n{index}")).physical_id for index in range(2500)]
    before = provider.cloud.calls["list"]
    observed = provider.observe("OS::Neutron::Net", ids)
    assert len(observed) == 2500
    assert provider.cloud.calls["list"] - before == 3


@pytest.mark.parametrize(
    "adapter", [a for a in ADAPTERS if hasattr(a, "passthrough")], ids=lambda a: a.type_name
)
def test_adapters_pass_through_only_catalog_properties(adapter: Any) -> None:
    """A property the simulated provider reads must be one the catalog declares for that type."""
    assert set(adapter.passthrough) <= set(CATALOG[adapter.type_name].properties)


def test_a_servers_networks_and_security_groups_change_in_place() -> None:
    """Networks gained are attached, networks lost detached (Nova's own port deleted), groups set on ports."""
    provider = make_provider()
    fixture = Fixture(provider)
    other = provider.create("OS::Neutron::Net", {"name": "other"}, marker("other")).physical_id
    provider.create("OS::Neutron::Subnet", {"network": other, "cidr": "10.3.0.0/24"}, marker("other-subnet"))
    desired = {
        "flavor": "m1.tiny",
        "image": IMAGE,
        "networks": [{"network": "other"}],
        "security_groups": ["web"],
    }
    changed = frozenset({"networks", "security_groups", "admin_pass"})
    updated = provider.update(
        "OS::Nova::Server", fixture.server, {**desired, "admin_pass": "s3cret"}, changed
    )
    assert updated.physical_id == fixture.server
    assert updated.attributes["networks"] == {"other": ["10.3.0.2"]}
    ports = provider.cloud.list("ports", where={"device_id": fixture.server})
    assert [port["security_groups"] for port in ports] == [[fixture.group]]
    assert (
        provider.cloud.list("ports", where={"network_id": fixture.net, "device_owner": "compute:nova"}) == []
    )
    assert "s3cret" not in str(provider.cloud.get("servers", fixture.server))
