"""Faults on the wire become errors that carry their policy: the cloud answers 500, 503 or 429, or
does not answer in time, or refuses a create over quota. Driven through the real openstacksdk
against the simulated cloud's failure injection."""

from __future__ import annotations

import logging

import pytest

from providers.interface import Permanent, Retryable
from providers.simulated.faults import CallFault, Faults
from providers.simulated.settings import CloudSettings, Latency
from tests.openstack.conftest import CloudUnderTest, StartCloud
from tests.openstack.scenario import FLAVOR, IMAGE, given_a_network, marker

SERVER = {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}


@pytest.mark.parametrize("fault", [CallFault.SERVER_ERROR, CallFault.UNAVAILABLE, CallFault.TIMEOUT])
def test_a_failed_call_is_retryable_and_the_retry_succeeds(sim: CloudUnderTest, fault: CallFault) -> None:
    given_a_network(sim.provider)
    sim.cloud.faults.fail_next(fault, operation="create", collection="servers")

    with pytest.raises(Retryable):
        sim.provider.create("OS::Nova::Server", SERVER, marker("web"))
    created = sim.provider.create("OS::Nova::Server", SERVER, marker("web"))

    assert created.physical_id


def test_a_policy_refusal_is_permanent_with_the_clouds_message(sim: CloudUnderTest) -> None:
    """The injected 403 crosses the HTTP face and the real SDK, and is refused for good."""
    network = given_a_network(sim.provider, "refused")
    sim.cloud.faults.faults = Faults.parse("error_rate=1,kinds=403,operations=delete")

    with pytest.raises(Permanent, match=r"HTTP 403.*Policy does not allow"):
        sim.provider.delete("OS::Neutron::Subnet", network.subnet.physical_id)


def test_a_rate_limited_call_is_retryable_after_the_clouds_retry_after(start_cloud: StartCloud) -> None:
    sim = start_cloud(faults=Faults(retry_after=7.0))
    sim.cloud.faults.fail_next(CallFault.RATE_LIMITED, operation="list", collection="volumes")

    with pytest.raises(Retryable) as raised:
        sim.provider.observe("OS::Cinder::Volume", ["any"])

    assert raised.value.after == 7.0


def test_a_lost_answer_is_retryable_and_the_marker_finds_what_the_cloud_made(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    web = marker("web")
    sim.cloud.faults.fail_next(CallFault.LOST_RESPONSE, operation="create", collection="servers")

    with pytest.raises(Retryable):
        sim.provider.create("OS::Nova::Server", SERVER, web)
    found = sim.provider.find_by_marker("OS::Nova::Server", web)

    assert found is not None and found.marker == web


def test_a_cloud_slower_than_the_timeout_is_retryable(start_cloud: StartCloud) -> None:
    sim = start_cloud(settings=CloudSettings(latency=Latency(per_operation={"list": 2.0})), timeout=0.3)

    with pytest.raises(Retryable, match="did not answer"):
        sim.provider.observe("OS::Neutron::Net", ["any"])


@pytest.mark.parametrize(
    ("type_name", "collection", "properties", "words"),
    [
        ("OS::Nova::Server", "servers", SERVER, "Quota exceeded"),
        ("OS::Neutron::Port", "ports", {"network": "private"}, "Quota exceeded"),
        ("OS::Cinder::Volume", "volumes", {"size": 1}, "quota"),
    ],
)
def test_over_quota_is_permanent_with_the_clouds_message(
    start_cloud: StartCloud, type_name: str, collection: str, properties: dict[str, object], words: str
) -> None:
    sim = start_cloud(settings=CloudSettings(quotas={collection: 0}))
    given_a_network(sim.provider)

    with pytest.raises(Permanent) as raised:
        sim.provider.create(type_name, properties, marker("over"))

    assert words.lower() in str(raised.value).lower()


def test_credentials_never_reach_logs_or_errors(
    start_cloud: StartCloud, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    sim = start_cloud()
    given_a_network(sim.provider)
    sim.cloud.faults.fail_next(CallFault.SERVER_ERROR, operation="create", collection="servers")

    with pytest.raises(Retryable) as raised:
        sim.provider.create("OS::Nova::Server", {**SERVER, "admin_pass": "hunter2-secret"}, marker("web"))

    for secret in (sim.password, "hunter2-secret"):
        assert secret not in caplog.text
        assert secret not in str(raised.value)
