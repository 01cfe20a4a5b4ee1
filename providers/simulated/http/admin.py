"""The admin API (no token; loopback only): inject faults and change the world behind the clients'
backs, for drift and failure tests run against a served cloud.

- `GET  /admin/stats`                                calls per operation, items per collection
- `PUT  /admin/faults`        {"error_rate": 0.1, "kinds": ["500", "timeout"], ...}  (Faults fields)
- `POST /admin/faults/next`   {"fault": "429", "count": 1, "operation": "create", "collection": "servers"}
- `POST /admin/{collection}/{id}/vanish`             deleted behind the clients' backs
- `POST /admin/{collection}/{id}/status`  {"status": "ERROR"}
- `POST /admin/{collection}/{id}/change`  {"fields": {"name": "other"}}
- `POST /admin/{collection}/{id}/hold-in-build`      never leaves BUILD
- `POST /admin/save`                                 write the state file now
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.faults import CallFault, Faults
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.routing import Route

SERVICE = "admin"
FAULT_FIELDS = frozenset(field.name for field in fields(Faults))


def faults_from(body: Any) -> Faults:
    if not isinstance(body, Mapping):
        raise BadRequest("Faults must be a JSON object.")
    unknown = sorted(set(body) - FAULT_FIELDS)
    if unknown:
        raise BadRequest(
            f"Unknown fault settings: {', '.join(unknown)} (known: {', '.join(sorted(FAULT_FIELDS))})"
        )
    settings = dict(body)
    try:
        if "kinds" in settings:
            settings["kinds"] = tuple(CallFault(kind) for kind in settings["kinds"])
        if "operations" in settings:
            settings["operations"] = frozenset(settings["operations"])
    except ValueError as error:
        raise BadRequest(str(error)) from error
    return replace(Faults(), **settings)


class Admin:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", "/admin/stats", self.stats, SERVICE, public=True),
            Route.of("PUT", "/admin/faults", self.set_faults, SERVICE, public=True),
            Route.of("POST", "/admin/faults/next", self.fail_next, SERVICE, public=True),
            Route.of("POST", "/admin/save", self.save, SERVICE, public=True),
            Route.of("POST", "/admin/{collection}/{id}/{change}", self.out_of_band, SERVICE, public=True),
        ]

    def stats(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        counts = {name: self.cloud.count(name) for name in self.cloud.world.inventories}
        return reply(
            200,
            {
                "calls": dict(self.cloud.calls),
                "in_flight": self.cloud.in_flight,
                "peak_in_flight": self.cloud.peak_in_flight,
                "counts": counts,
            },
        )

    def set_faults(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        self.cloud.faults.faults = faults_from(request.body)
        return reply(204)

    def fail_next(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        body = request.body if isinstance(request.body, Mapping) else {}
        try:
            fault = CallFault(body.get("fault", "500"))
        except ValueError as error:
            raise BadRequest(str(error)) from error
        self.cloud.faults.fail_next(
            fault,
            int(body.get("count", 1)),
            operation=body.get("operation"),
            collection=body.get("collection"),
        )
        return reply(204)

    def save(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        self.cloud.save()
        return reply(204)

    def out_of_band(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        collection, item_id, change = params["collection"], params["id"], params["change"]
        body = request.body if isinstance(request.body, Mapping) else {}
        if change == "vanish":
            self.cloud.vanish(collection, item_id)
        elif change == "status":
            self.cloud.set_status(collection, item_id, str(body.get("status", "ERROR")))
        elif change == "change":
            self.cloud.change(collection, item_id, dict(body.get("fields") or {}))
        elif change == "hold-in-build":
            self.cloud.hold_in_build(collection, item_id)
        else:
            raise BadRequest(
                f"Unknown out-of-band change {change!r} (vanish, status, change, hold-in-build)."
            )
        return reply(204)
