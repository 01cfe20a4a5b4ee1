"""Aodh (alarming v2) over HTTP: alarms and their state, at Aodh's own URL layout under the
catalog's `alarming` endpoint.

- `GET /alarming`                      version discovery (v2)
- `GET|POST /alarming/v2/alarms`       list (`q.field`/`q.op`/`q.value` queries, `limit`, `marker`),
                                       create (the alarm body itself, no wrapper; 201)
- `GET|PUT|DELETE /alarming/v2/alarms/{id}`        show, replace (the whole alarm), delete (204)
- `GET|PUT /alarming/v2/alarms/{id}/state`         the state, as a JSON string

Lists are plain JSON arrays, as Aodh answers; errors are Aodh's `error_message` bodies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated import alarms
from providers.simulated.alarm_rules import compared
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import page_limit
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body

SERVICE = "aodh"
ROOT = "/alarming"
PREFIX = f"{ROOT}/v2"


class Aodh:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", ROOT, self.versions, SERVICE, public=True),
            Route.of("GET", f"{PREFIX}/alarms", self.list_alarms, SERVICE),
            Route.of("POST", f"{PREFIX}/alarms", self.create_alarm, SERVICE),
            Route.of("GET", f"{PREFIX}/alarms/{{id}}", self.get_alarm, SERVICE),
            Route.of("PUT", f"{PREFIX}/alarms/{{id}}", self.replace_alarm, SERVICE),
            Route.of("DELETE", f"{PREFIX}/alarms/{{id}}", self.delete_alarm, SERVICE),
            Route.of("GET", f"{PREFIX}/alarms/{{id}}/state", self.get_state, SERVICE),
            Route.of("PUT", f"{PREFIX}/alarms/{{id}}/state", self.set_state, SERVICE),
        ]

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {
            "id": "v2",
            "status": "stable",
            "updated": "2013-02-13T00:00:00Z",
            "links": [{"rel": "self", "href": request.url(PREFIX)}],
            "media-types": [
                {"base": "application/json", "type": "application/vnd.openstack.telemetry-v2+json"}
            ],
        }
        return reply(200, {"versions": {"values": [version]}})

    def list_alarms(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        conditions = list(
            zip(
                request.query.get("q.field", []),
                request.query.get("q.op", []),
                request.query.get("q.value", []),
                strict=False,
            )
        )

        def wanted(body: Body) -> bool:
            return all(compared(op or "eq", body.get(field), value) for field, op, value in conditions)

        items, _more = self.cloud.page(
            "alarms",
            limit=page_limit(request),
            marker=request.first("marker"),
            predicate=wanted if conditions else None,
        )
        return reply(200, [alarms.shown(body) for body in items])

    def create_alarm(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return reply(201, alarms.shown(self.cloud.create("alarms", alarm_request(request.body))))

    def get_alarm(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, alarms.shown(self.cloud.get("alarms", params["id"])))

    def replace_alarm(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(
            200, alarms.shown(self.cloud.update("alarms", params["id"], alarm_request(request.body)))
        )

    def delete_alarm(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.delete("alarms", params["id"])
        return reply(204)

    def get_state(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, self.cloud.get("alarms", params["id"])["state"])

    def set_state(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        if request.body not in alarms.STATES:
            raise BadRequest(
                f"Invalid input for field/attribute state. Value: '{request.body}'. "
                f"Value should be one of: {', '.join(alarms.STATES)}"
            )
        changed = self.cloud.update(
            "alarms", params["id"], {"state": request.body, "state_reason": "Manually set via API"}
        )
        return reply(200, changed["state"])


def alarm_request(body: Any) -> dict[str, Any]:
    if not isinstance(body, Mapping):
        raise BadRequest("Malformed request body: expected an alarm object.")
    return dict(body)
