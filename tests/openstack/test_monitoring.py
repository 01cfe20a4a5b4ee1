"""OS::Monasca::Notification and AlarmDefinition against the simulated cloud over HTTP, through
openstacksdk: expressions checked for Monasca's shape, actions naming notification methods, the
marker in the name or description where no tag can hold it."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, Permanent
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import marker

NOTIFICATION = "OS::Monasca::Notification"
DEFINITION = "OS::Monasca::AlarmDefinition"
EXPRESSION = "avg(cpu.utilization_perc{scale_group=abc}) > 50 times 3"


def test_an_unnamed_webhook_takes_the_markers_name_and_changes_in_place(sim: CloudUnderTest) -> None:
    example = marker("up_notification")
    properties = {"type": "webhook", "address": "http://192.0.2.10/signal"}

    created = sim.provider.create(NOTIFICATION, properties, example)
    changed = sim.provider.update(
        NOTIFICATION,
        created.physical_id,
        {**properties, "address": "http://192.0.2.11/"},
        frozenset({"address"}),
    )

    found = sim.provider.find_by_marker(NOTIFICATION, example)
    assert created.status is LiveStatus.READY and created.properties["type"] == "webhook"
    assert changed.properties["address"] == "http://192.0.2.11/"
    assert changed.properties["name"] == created.properties["name"]
    assert found is not None and found.physical_id == created.physical_id


def test_a_period_other_than_a_webhooks_is_unprocessable(sim: CloudUnderTest) -> None:
    with pytest.raises(Permanent, match="Invalid period"):
        sim.provider.create(
            NOTIFICATION, {"type": "email", "address": "a@example.org", "period": 60}, marker("n")
        )


def test_an_alarm_definition_names_its_notifications_and_changes_severity_in_place(
    sim: CloudUnderTest,
) -> None:
    notification = sim.provider.create(NOTIFICATION, {"type": "webhook", "address": "http://x/"}, marker("n"))
    properties = {"name": "cpu high", "expression": EXPRESSION, "severity": "high",
                  "alarm_actions": [notification.physical_id]}  # fmt: skip
    example = marker("cpu_alarm_high")

    created = sim.provider.create(DEFINITION, properties, example)
    sim.log.clear()
    seen = sim.provider.observe(DEFINITION, [created.physical_id])[created.physical_id]
    requests = sim.log.count()
    changed = sim.provider.update(
        DEFINITION, created.physical_id, {**properties, "severity": "critical"}, frozenset({"severity"})
    )

    assert seen.properties["severity"] == "high" and seen.properties["alarm_actions"] == [
        notification.physical_id
    ]
    assert requests == 1
    assert changed.properties["severity"] == "critical"
    assert sim.provider.find_by_marker(DEFINITION, example) is not None
    assert undocumented_requests(sim) == []


@pytest.mark.parametrize(
    "expression",
    [
        "cpu.idle_perc < 10",
        "(avg(a{x=y}, 60) > 5 and max(b) <= 3) or c > 1",
        "avg(x, deterministic, 120) >= 2.5",
    ],
)
def test_expressions_of_monascas_shape_are_taken(sim: CloudUnderTest, expression: str) -> None:
    created = sim.provider.create(DEFINITION, {"expression": expression}, marker("definition"))

    assert created.properties["expression"] == expression


@pytest.mark.parametrize(
    "expression", ["avg(cpu{a=b} > 5", "cpu is high", "avg(cpu) >", "max(cpu) > 5 times"]
)
def test_an_expression_monasca_cannot_parse_is_refused_with_its_words(
    sim: CloudUnderTest, expression: str
) -> None:
    with pytest.raises(Permanent, match="Failed to parse expression"):
        sim.provider.create(DEFINITION, {"expression": expression}, marker("definition"))


def test_actions_naming_no_notification_method_are_refused(sim: CloudUnderTest) -> None:
    with pytest.raises(Permanent, match="Invalid notification method id"):
        sim.provider.create(
            DEFINITION,
            {"expression": EXPRESSION, "alarm_actions": ["0b8e8d5e-0000-4000-8000-000000000000"]},
            marker("d"),
        )


def test_a_create_repeated_adopts_its_definition_and_a_name_taken_by_another_fails(
    sim: CloudUnderTest,
) -> None:
    ours = marker("d")
    properties = {"name": "cpu high", "expression": EXPRESSION}
    first = sim.provider.create(DEFINITION, properties, ours)

    again = sim.provider.create(DEFINITION, properties, ours)

    assert again.physical_id == first.physical_id
    with pytest.raises(Permanent, match="already exists and is not this resource's"):
        sim.provider.create(DEFINITION, {**properties, "expression": "x > 1"}, marker("other"))
