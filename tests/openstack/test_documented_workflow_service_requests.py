"""Held-back check for the Mistral, Zun, Blazar and Zaqar subscription types: every request the
provider sends while each lives its life (create, update, observe, find by marker, delete) is one
docs/openstack-api.md documents: method, path under the service's endpoint, body keys.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from providers.interface import LiveResource
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import documented_calls, service_of
from tests.openstack.scenario import given_a_network, marker

TASKS = [{"name": "hello", "action": "std.noop"}]


def test_every_workflow_container_and_reservation_request_sent_is_a_documented_one(
    sim: CloudUnderTest,
) -> None:
    provider = sim.provider
    given_a_network(provider, "blue")
    given_a_network(provider, "green")
    provider.create("OS::Zaqar::Queue", {"name": "alarms"}, marker("queue"))
    lived: list[tuple[str, LiveResource]] = []

    def lives(type_name: str, properties: dict[str, object], changed: dict[str, object]) -> LiveResource:
        live = provider.create(type_name, properties, marker(type_name))
        if changed:
            live = provider.update(type_name, live.physical_id, {**properties, **changed}, frozenset(changed))
        lived.append((type_name, live))
        return live

    workflow = lives("OS::Mistral::Workflow", {"type": "direct", "tasks": TASKS}, {"description": "d"})
    lives("OS::Mistral::CronTrigger", {"pattern": "* * * * *", "workflow": workflow.attributes["data"]}, {})
    actions = {"CREATE": {"workflow": workflow.physical_id, "params": {}}}
    external = lives("OS::Mistral::ExternalResource", {"actions": actions, "input": {}}, {})
    sim.clock.advance(60)
    lives(
        "OS::Zaqar::MistralTrigger",
        {"queue_name": "alarms", "workflow_id": workflow.physical_id, "input": {}},
        {"ttl": 60},
    )
    lives(
        "OS::Zaqar::Subscription", {"queue_name": "alarms", "subscriber": "http://h.example.org/"}, {"ttl": 9}
    )
    lives(
        "OS::Zun::Container",
        {"image": "busybox", "networks": [{"network": "blue"}]},
        {"cpu": 2.0, "networks": [{"network": "green"}]},
    )
    lives("OS::Blazar::Host", {"name": "compute-1"}, {})
    lives(
        "OS::Blazar::Lease",
        {
            "name": "l",
            "start_date": "2031-01-01 00:00",
            "end_date": "2031-01-02 00:00",
            "reservations": [{"resource_type": "physical:host", "min": 1, "max": 1}],
        },
        {},
    )
    sim.clock.advance(60)
    assert external.physical_id in provider.observe("OS::Mistral::ExternalResource", [external.physical_id])

    for type_name, live in lived:
        assert live.physical_id in provider.observe(type_name, [live.physical_id]), type_name
        if live.marker is not None:
            provider.find_by_marker(type_name, live.marker)
    for type_name, live in reversed(lived):
        provider.delete(type_name, live.physical_id)

    connection = provider.connection
    services = {
        "workflow": connection.workflow,
        "container": connection.application_container,
        "reservation": connection.reservation,
        "messaging": connection.message,
        "network": connection.network,
    }
    prefixes = {name: urlsplit(proxy.get_endpoint()).path.rstrip("/") for name, proxy in services.items()}
    calls = documented_calls()
    undocumented = []
    seen = set()
    for sent in sim.log.requests:
        service, relative = service_of(sent, prefixes)
        if service is None or relative in ("", "/"):
            continue
        seen.add(service)
        if not any(call.allows(service, sent, relative) for call in calls):
            undocumented.append(f"{service} {sent.method} {relative} {sorted(sent.body_keys)}")
    assert undocumented == []
    assert seen == set(services)
