"""The admin API's telemetry part (no token; loopback only): what alarms are evaluated from.

- `PUT  /admin/measures`  {"resource_id": "...", "metric": "cpu_util", "value": 85.0,
                           "resource_type": "instance", "attributes": {"server_group": "..."},
                           "metric_id": "..."}        the newest measure of one metric of one resource
- `POST /admin/events`    {"event_type": "compute.instance.update", "traits": {"state": "error"}}
- `POST /admin/alarms/evaluate`   one evaluation round now; answers the notifications sent
                                  (URLs without their query, which may hold a signature)
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from providers.simulated.alarm_evaluator import AlarmEvaluator
from providers.simulated.alarm_notifier import shown_url
from providers.simulated.errors import BadRequest
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.routing import Route
from providers.simulated.telemetry import Event, Measure

SERVICE = "admin"


class TelemetryAdmin:
    def __init__(self, evaluator: AlarmEvaluator) -> None:
        self.evaluator = evaluator

    def routes(self) -> list[Route]:
        return [
            Route.of("PUT", "/admin/measures", self.record_measure, SERVICE, public=True),
            Route.of("POST", "/admin/events", self.emit_event, SERVICE, public=True),
            Route.of("POST", "/admin/alarms/evaluate", self.evaluate, SERVICE, public=True),
        ]

    def record_measure(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        body = object_body(request)
        try:
            measure = Measure(
                resource_id=str(body["resource_id"]),
                metric=str(body["metric"]),
                value=float(body["value"]),
                at=self.evaluator.cloud.clock(),
                resource_type=str(body.get("resource_type") or "generic"),
                attributes=dict(body.get("attributes") or {}),
                metric_id=str(body["metric_id"]) if body.get("metric_id") else None,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise BadRequest(f"A measure needs resource_id, metric and a numeric value ({error}).") from error
        self.evaluator.cloud.telemetry.record(measure)
        return reply(204)

    def emit_event(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        body = object_body(request)
        if not isinstance(body.get("event_type"), str):
            raise BadRequest("An event needs an event_type.")
        event = Event(
            str(body["event_type"]),
            dict(body.get("traits") or {}),
            str(body.get("message_id") or uuid.uuid4()),
        )
        self.evaluator.cloud.telemetry.emit(event)
        return reply(204)

    def evaluate(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        sent = [
            {
                "alarm_id": delivery.notification.body["alarm_id"],
                "url": shown_url(delivery.notification.url),
                "current": delivery.notification.body["current"],
                "status": delivery.status,
            }
            for delivery in self.evaluator.evaluate()
        ]
        return reply(200, {"notifications": sent})


def object_body(request: ApiRequest) -> Mapping[str, Any]:
    if not isinstance(request.body, Mapping):
        raise BadRequest("Expected a JSON object.")
    return request.body
