"""Held-back check for the alarming and identity services: every request the provider sends while
each Aodh and Keystone type lives its life (create, update, observe, find by marker, delete) is one
docs/openstack-api.md documents: method, path under the service's endpoint, body keys.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import documented_calls, service_of
from tests.openstack.scenario import marker

ALARMS: dict[str, dict[str, Any]] = {
    "OS::Aodh::Alarm": {"meter_name": "cpu_util", "threshold": 50, "matching_metadata": {"stack": "s"}},
    "OS::Aodh::GnocchiResourcesAlarm": {
        "metric": "cpu",
        "resource_id": "r",
        "resource_type": "instance",
        "threshold": 1,
    },
    "OS::Aodh::GnocchiAggregationByMetricsAlarm": {"metrics": ["m"], "threshold": 1, "ok_queues": ["q"]},
    "OS::Aodh::GnocchiAggregationByResourcesAlarm": {
        "metric": "cpu",
        "resource_type": "instance",
        "query": "{}",
        "threshold": 1,
    },
    "OS::Aodh::EventAlarm": {"event_type": "compute.instance.*"},
    "OS::Aodh::CompositeAlarm": {
        "composite_rule": {
            "operator": "or",
            "rules": [
                {
                    "type": "gnocchi_resources_threshold",
                    "metric": "a",
                    "resource_id": "r",
                    "resource_type": "x",
                    "threshold": 1,
                },
                {
                    "type": "gnocchi_resources_threshold",
                    "metric": "b",
                    "resource_id": "r",
                    "resource_type": "x",
                    "threshold": 2,
                },
            ],
        }
    },
}


def test_every_alarming_and_identity_request_sent_is_a_documented_one(sim: CloudUnderTest) -> None:
    provider = sim.provider
    lived = []
    for type_name, properties in ALARMS.items():
        alarm = provider.create(
            type_name, {**properties, "alarm_actions": ["http://x.invalid/"]}, marker(type_name)
        )
        provider.update(
            type_name, alarm.physical_id, {**properties, "enabled": False}, frozenset({"enabled"})
        )
        lived.append((type_name, alarm))

    def made(type_name: str, properties: dict[str, Any], changed: dict[str, Any]) -> None:
        live = provider.create(type_name, properties, marker(type_name))
        provider.update(type_name, live.physical_id, {**properties, **changed}, frozenset(changed))
        lived.append((type_name, live))

    made("OS::Keystone::Domain", {"name": "d1"}, {"description": "d"})
    made("OS::Keystone::Project", {"name": "p1", "tags": ["a"]}, {"tags": ["b"], "description": "p"})
    made("OS::Keystone::Role", {"name": "r1"}, {"name": "r2"})
    made(
        "OS::Keystone::Group",
        {"name": "g1", "roles": [{"role": "r2", "domain": "default"}]},
        {"roles": [{"role": "r2", "project": "p1"}]},
    )
    made(
        "OS::Keystone::User",
        {"name": "u1", "password": "pw", "groups": ["g1"], "roles": [{"role": "r2", "project": "p1"}]},
        {"groups": [], "roles": [{"role": "r2", "domain": "default"}], "email": "u@x"},
    )
    made(
        "OS::Keystone::UserRoleAssignment",
        {"user": "u1", "roles": [{"role": "member", "project": "p1"}]},
        {"roles": []},
    )
    made(
        "OS::Keystone::GroupRoleAssignment",
        {"group": "g1", "roles": [{"role": "reader", "domain": "default"}]},
        {"roles": [{"role": "reader", "project": "p1"}]},
    )
    made("OS::Keystone::Region", {"id": "r-east"}, {"description": "east"})
    made("OS::Keystone::Service", {"name": "svc", "type": "thing"}, {"enabled": False})
    made(
        "OS::Keystone::Endpoint",
        {"service": "svc", "interface": "public", "url": "http://e", "region": "r-east"},
        {"url": "http://f"},
    )

    for type_name, live in lived:
        assert live.physical_id in provider.observe(type_name, [live.physical_id]), type_name
        if live.marker is not None:
            assert provider.find_by_marker(type_name, live.marker) is not None, type_name
    for type_name, live in reversed(lived):
        provider.delete(type_name, live.physical_id)

    connection = provider.connection
    prefixes = {
        "alarming": urlsplit(connection.alarm.get_endpoint()).path.rstrip("/"),
        "identity": urlsplit(connection.identity.get_endpoint_data().url).path.rstrip("/"),
    }
    calls = documented_calls()
    undocumented = []
    seen = set()
    for sent in sim.log.requests:
        service, relative = service_of(sent, prefixes)
        if service is None or relative in ("", "/") or relative.startswith("/auth/"):
            continue
        seen.add(service)
        if not any(call.allows(service, sent, relative) for call in calls):
            undocumented.append(f"{service} {sent.method} {relative} {sorted(sent.body_keys)}")
    assert undocumented == []
    assert seen == {"alarming", "identity"}
