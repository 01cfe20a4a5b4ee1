"""Aodh alarms through the OpenStack provider against the simulated cloud's HTTP face: every alarm
type Heat writes is created, read back, changed, found by its marker and deleted, and a threshold
alarm POSTs Aodh's notification to a real HTTP receiver when the metric it watches rises.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from providers.interface import LiveResource, NotFound, Permanent
from providers.simulated.alarm_evaluator import AlarmEvaluator
from providers.simulated.telemetry import Event, Measure
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import marker

CPU_HIGH = {
    "metric": "cpu_util",
    "resource_type": "instance",
    "query": json.dumps({"=": {"server_group": "web"}}),
    "aggregation_method": "mean",
    "granularity": 300,
    "evaluation_periods": 1,
    "threshold": 80,
    "comparison_operator": "gt",
}


class Receiver:
    """A local HTTP endpoint that keeps every JSON body POSTed to it."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                receiver.bodies.append(json.loads(self.rfile.read(length)))
                receiver.paths.append(self.path)
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"


@contextmanager
def receiving() -> Iterator[Receiver]:
    receiver = Receiver()
    thread = threading.Thread(target=receiver.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()
        thread.join()


def cpu_of_web_servers(sim: CloudUnderTest, value: float) -> None:
    for server in ("s1", "s2"):
        sim.cloud.telemetry.record(
            Measure(server, "cpu_util", value, sim.clock.now(), "instance", {"server_group": "web"})
        )


def test_a_rising_metric_makes_the_alarm_post_to_its_action_url(sim: CloudUnderTest) -> None:
    evaluator = AlarmEvaluator(sim.cloud)
    with receiving() as receiver:
        alarm = sim.provider.create(
            "OS::Aodh::GnocchiAggregationByResourcesAlarm",
            {
                **CPU_HIGH,
                "alarm_actions": [f"trust+{receiver.url}/signal/scale-up?sig=s3cr3t"],
                "repeat_actions": False,
            },
            marker("cpu_alarm_high"),
        )
        cpu_of_web_servers(sim, 20.0)
        evaluator.evaluate()
        assert receiver.bodies == []

        cpu_of_web_servers(sim, 95.0)
        sim.clock.advance(60)
        evaluator.evaluate()
        evaluator.evaluate()  # still high: repeat_actions is off, so no second POST

        assert len(receiver.bodies) == 1
        notice = receiver.bodies[0]
        assert notice["alarm_id"] == alarm.physical_id
        assert (notice["previous"], notice["current"]) == ("ok", "alarm")
        assert notice["alarm_name"] == alarm.attributes["show"]["name"]
        assert notice["severity"] == "low"
        assert notice["reason_data"]["most_recent"] == 95.0
        assert "outside threshold" in notice["reason"]
        assert receiver.paths == ["/signal/scale-up?sig=s3cr3t"]
    observed = sim.provider.observe("OS::Aodh::GnocchiAggregationByResourcesAlarm", [alarm.physical_id])
    assert observed[alarm.physical_id].attributes["state"] == "alarm"


def test_repeat_actions_post_on_every_round_in_alarm(sim: CloudUnderTest) -> None:
    evaluator = AlarmEvaluator(sim.cloud)
    with receiving() as receiver:
        sim.provider.create(
            "OS::Aodh::GnocchiResourcesAlarm",
            {
                "metric": "cpu_util",
                "resource_id": "s1",
                "resource_type": "instance",
                "threshold": 50,
                "comparison_operator": "ge",
                "alarm_actions": [receiver.url],
                "ok_actions": [receiver.url],
                "repeat_actions": True,
            },
            marker("single"),
        )
        sim.cloud.telemetry.record(Measure("s1", "cpu_util", 70.0, sim.clock.now(), "instance"))
        evaluator.evaluate()
        evaluator.evaluate()
        sim.cloud.telemetry.record(Measure("s1", "cpu_util", 10.0, sim.clock.now(), "instance"))
        evaluator.evaluate()
    assert [body["current"] for body in receiver.bodies] == ["alarm", "alarm", "ok"]


def test_an_event_alarm_fires_on_a_matching_event_only(sim: CloudUnderTest) -> None:
    evaluator = AlarmEvaluator(sim.cloud)
    with receiving() as receiver:
        sim.provider.create(
            "OS::Aodh::EventAlarm",
            {
                "event_type": "compute.instance.update",
                "alarm_actions": [receiver.url],
                "query": [
                    {"field": "traits.instance_id", "value": "vm-1", "op": "eq"},
                    {"field": "traits.state", "value": "error", "op": "eq"},
                ],
            },
            marker("error_event"),
        )
        sim.cloud.telemetry.emit(Event("compute.instance.update", {"instance_id": "vm-1", "state": "active"}))
        sim.cloud.telemetry.emit(Event("compute.instance.update", {"instance_id": "vm-2", "state": "error"}))
        evaluator.evaluate()
        assert receiver.bodies == []
        sim.cloud.telemetry.emit(
            Event("compute.instance.update", {"instance_id": "vm-1", "state": "error"}, "m1")
        )
        evaluator.evaluate()
    assert [(body["previous"], body["current"]) for body in receiver.bodies] == [
        ("insufficient data", "alarm")
    ]
    assert receiver.bodies[0]["reason_data"]["event"]["traits"]["state"] == "error"


def test_a_composite_alarm_follows_its_rule_tree(sim: CloudUnderTest) -> None:
    evaluator = AlarmEvaluator(sim.cloud)
    leaf = {
        "type": "gnocchi_resources_threshold",
        "metric": "cpu_util",
        "resource_type": "instance",
        "comparison_operator": "gt",
        "threshold": 80,
    }
    with receiving() as receiver:
        composite = sim.provider.create(
            "OS::Aodh::CompositeAlarm",
            {
                "composite_rule": {
                    "operator": "and",
                    "rules": [
                        {**leaf, "resource_id": "a"},
                        {"or": [{**leaf, "resource_id": "b"}, {**leaf, "resource_id": "c"}]},
                    ],
                },
                "alarm_actions": [receiver.url],
                "ok_actions": [receiver.url],
            },
            marker("both_hot"),
        )
        record = sim.cloud.telemetry.record
        record(Measure("a", "cpu_util", 90.0, sim.clock.now(), "instance"))
        record(Measure("b", "cpu_util", 10.0, sim.clock.now(), "instance"))
        evaluator.evaluate()  # c unknown, b cool: the "or" is unknown, so the whole is unknown
        record(Measure("c", "cpu_util", 10.0, sim.clock.now(), "instance"))
        evaluator.evaluate()  # a hot but neither b nor c: ok
        record(Measure("c", "cpu_util", 99.0, sim.clock.now(), "instance"))
        evaluator.evaluate()  # a and c hot: alarm
    assert [body["current"] for body in receiver.bodies] == ["ok", "alarm"]
    shown = sim.provider.observe("OS::Aodh::CompositeAlarm", [composite.physical_id])[composite.physical_id]
    assert shown.properties["composite_rule"]["operator"] == "and"


def test_a_legacy_threshold_alarm_matches_its_metadata(sim: CloudUnderTest) -> None:
    evaluator = AlarmEvaluator(sim.cloud)
    with receiving() as receiver:
        sim.provider.create(
            "OS::Aodh::Alarm",
            {
                "meter_name": "cpu_util",
                "statistic": "avg",
                "period": 60,
                "evaluation_periods": 1,
                "threshold": 50,
                "comparison_operator": "gt",
                "alarm_actions": [receiver.url],
                "matching_metadata": {"metadata.user_metadata.stack": "stack-1"},
            },
            marker("legacy"),
        )
        sim.cloud.telemetry.record(
            Measure("vm", "cpu_util", 80.0, sim.clock.now(), "instance", {"stack": "other"})
        )
        evaluator.evaluate()
        sim.cloud.telemetry.record(
            Measure("vm2", "cpu_util", 80.0, sim.clock.now(), "instance", {"stack": "stack-1"})
        )
        evaluator.evaluate()
    assert [(body["previous"], body["current"]) for body in receiver.bodies] == [
        ("insufficient data", "alarm")
    ]


def test_alarm_lifecycle_update_adopt_drift_and_delete(sim: CloudUnderTest) -> None:
    provider = sim.provider
    type_name = "OS::Aodh::GnocchiAggregationByMetricsAlarm"
    properties = {
        "metrics": ["m-1"],
        "threshold": 10,
        "comparison_operator": "ge",
        "granularity": 60,
        "aggregation_method": "mean",
        "alarm_actions": ["http://example.invalid/up"],
        "alarm_queues": ["q1"],
    }
    the_marker = marker("metrics_alarm")
    alarm = provider.create(type_name, properties, the_marker)
    assert alarm.attributes["show"]["alarm_actions"] == [
        "http://example.invalid/up",
        "trust+zaqar://?queue_name=q1",
    ]
    assert alarm.properties["alarm_queues"] == ["q1"]

    again = provider.create(type_name, properties, the_marker)  # a worker that crashed after the create
    assert again.physical_id == alarm.physical_id
    assert found_id(provider.find_by_marker(type_name, the_marker)) == alarm.physical_id

    changed = provider.update(
        type_name, alarm.physical_id, {**properties, "threshold": 20}, frozenset({"threshold"})
    )
    assert changed.properties["threshold"] == 20
    assert changed.attributes["show"]["name"] == alarm.attributes["show"]["name"]

    sim.cloud.change("alarms", alarm.physical_id, {"enabled": False})
    drifted = provider.observe(type_name, [alarm.physical_id])[alarm.physical_id]
    assert drifted.properties["enabled"] is False

    provider.delete(type_name, alarm.physical_id)
    assert provider.observe(type_name, [alarm.physical_id]) == {}
    with pytest.raises(NotFound):
        provider.delete(type_name, alarm.physical_id)


def test_the_cloud_refuses_an_alarm_aodh_would_refuse(sim: CloudUnderTest) -> None:
    with pytest.raises(Permanent, match="comparison_operator"):
        sim.provider.create(
            "OS::Aodh::GnocchiResourcesAlarm",
            {
                "metric": "m",
                "resource_id": "r",
                "resource_type": "generic",
                "threshold": 1,
                "comparison_operator": "bigger",
            },
            marker("bad"),
        )


def found_id(live: LiveResource | None) -> str:
    assert live is not None
    return live.physical_id


def test_a_gnocchi_filter_that_is_not_json_is_refused_with_aodhs_words(sim: CloudUnderTest) -> None:
    with pytest.raises(Permanent, match="not a valid JSON object"):
        sim.provider.create(
            "OS::Aodh::GnocchiAggregationByResourcesAlarm",
            {**CPU_HIGH, "query": "server_group=web"},
            marker("bad"),
        )
