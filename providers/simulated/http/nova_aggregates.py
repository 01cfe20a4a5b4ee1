"""Nova's host aggregates over HTTP, under `/compute/v2.1/os-aggregates`, with integer ids as Nova
shows them and its one-action-per-body `action` call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from providers.simulated.aggregates import AGGREGATE_ACTIONS
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.inventory import Body

COLLECTION = "aggregates"
VersionedHandler = Callable[[ApiRequest, Mapping[str, str], str], ApiResponse]


class AggregatesFace:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def table(self) -> list[tuple[str, str, VersionedHandler]]:
        return [
            ("GET", "/os-aggregates", self.list_aggregates),
            ("POST", "/os-aggregates", self.create_aggregate),
            ("GET", "/os-aggregates/{id}", self.get_aggregate),
            ("PUT", "/os-aggregates/{id}", self.update_aggregate),
            ("DELETE", "/os-aggregates/{id}", self.delete_aggregate),
            ("POST", "/os-aggregates/{id}/action", self.aggregate_action),
        ]

    def list_aggregates(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"aggregates": [shown_aggregate(body) for body in self.cloud.list(COLLECTION)]})

    def create_aggregate(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        created = self.cloud.create(COLLECTION, request.member("aggregate"))
        return reply(200, {"aggregate": shown_aggregate(created)})

    def get_aggregate(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"aggregate": shown_aggregate(self.cloud.get(COLLECTION, params["id"]))})

    def update_aggregate(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        updated = self.cloud.update(COLLECTION, params["id"], request.member("aggregate"))
        return reply(200, {"aggregate": shown_aggregate(updated)})

    def delete_aggregate(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.delete(COLLECTION, params["id"])
        return reply(200)

    def aggregate_action(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        if not isinstance(request.body, Mapping) or len(request.body) != 1:
            raise BadRequest("Malformed request body: one action expected.")
        action, argument = next(iter(request.body.items()))
        if action not in AGGREGATE_ACTIONS or not isinstance(argument, Mapping):
            raise BadRequest(f"There is no such action: {action}")
        updated = self.cloud.act(COLLECTION, params["id"], action, dict(argument))
        return reply(200, {"aggregate": shown_aggregate(updated)})


def shown_aggregate(body: Body) -> dict[str, Any]:
    return {**body, "id": int(body["id"])}
