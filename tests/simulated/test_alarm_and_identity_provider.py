"""The alarm and identity types on the in-process simulated provider (no HTTP), and the served
cloud's admin API for telemetry: the same model, the same evaluator, the same notifications.
"""

from __future__ import annotations

import json
import random
import urllib.request
from typing import Any

from providers.interface import Marker
from providers.simulated.alarm_evaluator import AlarmEvaluator
from providers.simulated.alarm_notifier import AlarmNotifier
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.http.embedded import serve_in_thread
from providers.simulated.provider import SimulatedProvider
from providers.simulated.telemetry import Measure
from timekeeping.testing import SteppedClock


def marker(resource: str) -> Marker:
    return Marker(stack="app", resource=resource, record_id=f"0000000{len(resource)}-{resource}")


class Posts:
    """A stand-in for the network: keeps what would have been POSTed, answers 200."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, url: str, body: bytes) -> int:
        self.sent.append((url, json.loads(body)))
        return 200


def test_an_in_process_alarm_notifies_when_its_metric_rises_and_is_adopted_after_a_crash() -> None:
    clock = SteppedClock()
    cloud = SimulatedCloud(clock=clock.now, random_source=random.Random(5))
    provider = SimulatedProvider(cloud)
    posts = Posts()
    evaluator = AlarmEvaluator(cloud, AlarmNotifier(posts))
    properties = {
        "metric": "cpu_util",
        "resource_id": "vm",
        "resource_type": "instance",
        "threshold": 50,
        "comparison_operator": "gt",
        "evaluation_periods": 2,
        "alarm_actions": ["trust+http://h/up"],
    }
    alarm = provider.create("OS::Aodh::GnocchiResourcesAlarm", properties, marker("high"))
    assert provider.create("OS::Aodh::GnocchiResourcesAlarm", properties, marker("high")).physical_id == (
        alarm.physical_id
    )

    cloud.telemetry.record(Measure("vm", "cpu_util", 90.0, clock.now(), "instance"))
    evaluator.evaluate()
    assert posts.sent == []  # one breaching round of the two the rule asks for
    clock.advance(60)
    evaluator.evaluate()
    assert [(url, body["current"]) for url, body in posts.sent] == [("http://h/up", "alarm")]

    clock.advance(3600)  # the measure is older than the rule's window now
    evaluator.evaluate()
    observed = provider.observe("OS::Aodh::GnocchiResourcesAlarm", [alarm.physical_id])[alarm.physical_id]
    assert observed.attributes["state"] == "insufficient data"


def test_in_process_identity_types_follow_the_same_rules() -> None:
    provider = SimulatedProvider(SimulatedCloud(random_source=random.Random(5)))
    project = provider.create("OS::Keystone::Project", {"name": "p", "tags": ["t"]}, marker("p"))
    assert project.properties["tags"] == ["t"]
    found = provider.find_by_marker("OS::Keystone::Project", marker("p"))
    assert found is not None and found.physical_id == project.physical_id
    user = provider.create(
        "OS::Keystone::User",
        {"name": "u", "password": "hidden-pw", "roles": [{"role": "member", "project": "p"}]},
        marker("u"),
    )
    assert len(user.properties["roles"]) == 1 and "hidden-pw" not in repr(user)
    assignment = provider.create(
        "OS::Keystone::UserRoleAssignment",
        {"user": "u", "roles": [{"role": "reader", "domain": "default"}]},
        marker("ua"),
    )
    provider.delete("OS::Keystone::UserRoleAssignment", assignment.physical_id)
    left = provider.observe("OS::Keystone::User", [user.physical_id])[user.physical_id]
    assert len(left.properties["roles"]) == 1
    user_found = provider.find_by_marker("OS::Keystone::User", marker("u"))
    assert user_found is not None and user_found.physical_id == user.physical_id


def test_the_admin_api_takes_measures_and_runs_a_round() -> None:
    clock = SteppedClock()
    cloud = SimulatedCloud(clock=clock.now, random_source=random.Random(5))
    SimulatedProvider(cloud).create(
        "OS::Aodh::GnocchiResourcesAlarm",
        {
            "metric": "load",
            "resource_id": "vm",
            "resource_type": "instance",
            "threshold": 1,
            "comparison_operator": "gt",
            "alarm_actions": ["log://"],
        },
        marker("load"),
    )
    with serve_in_thread(cloud) as served:
        measure = {"resource_id": "vm", "metric": "load", "value": 3, "resource_type": "instance"}
        send(f"{served.url}/admin/measures", "PUT", measure)
        answer = send(f"{served.url}/admin/alarms/evaluate", "POST", {})
    assert [(item["current"], item["url"], item["status"]) for item in answer["notifications"]] == [
        ("alarm", "log://", None)
    ]


def send(url: str, method: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        payload = answer.read()
    return json.loads(payload) if payload else None
