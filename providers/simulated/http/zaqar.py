"""Zaqar (messaging v2) over HTTP, under `/messaging/v2`: queues made by PUT (201, or 204 when it
exists), listed with their metadata (`detailed=true`) in name order paged by `limit` and `marker`
with a `next` link, their metadata changed by JSON patch, deleted; each queue's subscriptions made,
listed (paged the same way, by id), shown, changed by a JSON PATCH and deleted. Every request must
carry a `Client-ID` header, as Zaqar requires."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body

SERVICE = "zaqar"
ROOT = "/messaging/v2"
PATCH_TYPE = "application/openstack-messaging-v2.0-json-patch"
MAX_LIMIT = 20  # Zaqar's largest page of queues (and of subscriptions)
SUBSCRIPTIONS = ROOT + "/queues/{name}/subscriptions"


class Zaqar:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", "/messaging", self.versions, SERVICE, public=True),
            Route.of("GET", ROOT, self.versions, SERVICE, public=True),
            Route.of("GET", ROOT + "/queues", self.list_queues, SERVICE),
            Route.of("PUT", ROOT + "/queues/{name}", self.put_queue, SERVICE),
            Route.of("GET", ROOT + "/queues/{name}", self.get_queue, SERVICE),
            Route.of("PATCH", ROOT + "/queues/{name}", self.patch_queue, SERVICE),
            Route.of("DELETE", ROOT + "/queues/{name}", self.delete_queue, SERVICE),
            Route.of("POST", SUBSCRIPTIONS, self.create_subscription, SERVICE),
            Route.of("GET", SUBSCRIPTIONS, self.list_subscriptions, SERVICE),
            Route.of("GET", SUBSCRIPTIONS + "/{id}", self.get_subscription, SERVICE),
            Route.of("PATCH", SUBSCRIPTIONS + "/{id}", self.patch_subscription, SERVICE),
            Route.of("DELETE", SUBSCRIPTIONS + "/{id}", self.delete_subscription, SERVICE),
        ]

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {
            "id": "2",
            "status": "CURRENT",
            "links": [{"rel": "self", "href": request.url(ROOT + "/")}],
        }
        return reply(200, {"versions": [version]})

    def list_queues(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        try:
            limit = min(int(request.first("limit") or 10), MAX_LIMIT)
        except ValueError as error:
            raise BadRequest(f"Invalid limit: {error}") from error
        after = request.first("marker") or ""
        queues = sorted(
            (body for body in self.cloud.list("queues") if body["name"] > after), key=lambda b: b["name"]
        )
        page = queues[:limit]
        detailed = request.first("detailed") == "true"
        shown = [self._queue(body, detailed) for body in page]
        links = []
        if len(queues) > limit:
            links.append({"rel": "next", "href": f"{ROOT}/queues?limit={limit}&marker={page[-1]['name']}"
                                                 f"{'&detailed=true' if detailed else ''}"})  # fmt: skip
        return reply(200, {"queues": shown, "links": links})

    def put_queue(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        metadata = request.body if request.body is not None else {}
        try:
            self.cloud.get("queues", params["name"])
        except ItemNotFound:
            self.cloud.create("queues", {"name": params["name"], "metadata": metadata})
            return reply(201)
        return reply(204)

    def get_queue(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        return reply(200, self.cloud.get("queues", params["name"])["metadata"])

    def patch_queue(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        if request.headers.get("content-type") != PATCH_TYPE:
            raise BadRequest(f"Content type must be {PATCH_TYPE}.")
        metadata = dict(self.cloud.get("queues", params["name"])["metadata"])
        for operation in request.body if isinstance(request.body, list) else [None]:
            if not isinstance(operation, Mapping) or operation.get("op") not in ("add", "replace", "remove"):
                raise BadRequest(
                    "Malformed JSON patch: each operation is add, replace or remove with a path."
                )
            key = str(operation.get("path", "")).removeprefix("/metadata/")
            if operation["op"] == "remove":
                metadata.pop(key, None)
            else:
                metadata[key] = operation.get("value")
        return reply(200, self.cloud.update("queues", params["name"], {"metadata": metadata})["metadata"])

    def delete_queue(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        self.cloud.delete("queues", params["name"])
        return reply(204)

    # subscriptions
    def create_subscription(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        fields = request.body if isinstance(request.body, Mapping) else {}
        created = self.cloud.create("subscriptions", {**fields, "queue_name": params["name"]})
        return reply(201, {"subscription_id": created["id"]})

    def list_subscriptions(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        self.cloud.get("queues", params["name"])
        try:
            limit = min(int(request.first("limit") or 10), MAX_LIMIT)
        except ValueError as error:
            raise BadRequest(f"Invalid limit: {error}") from error
        items, more = self.cloud.page(
            "subscriptions",
            limit=limit,
            marker=request.first("marker"),
            predicate=lambda body: body["source"] == params["name"],
        )
        links = []
        if more and items:
            links.append(
                {
                    "rel": "next",
                    "href": request.url(request.path, {"limit": limit, "marker": items[-1]["id"]}),
                }
            )
        return reply(200, {"subscriptions": items, "links": links})

    def get_subscription(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        return reply(200, self._subscription(params))

    def patch_subscription(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        self._subscription(params)
        fields = request.body if isinstance(request.body, Mapping) else {}
        self.cloud.update("subscriptions", params["id"], fields)
        return reply(204)

    def delete_subscription(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        client_id(request)
        self._subscription(params)
        self.cloud.delete("subscriptions", params["id"])
        return reply(204)

    def _subscription(self, params: Mapping[str, str]) -> Body:
        body = self.cloud.get("subscriptions", params["id"])
        if body["source"] != params["name"]:
            raise ItemNotFound(f"Subscription {params['id']} does not exist on queue {params['name']}.")
        return body

    @staticmethod
    def _queue(body: Body, detailed: bool) -> dict[str, Any]:
        shown: dict[str, Any] = {"name": body["name"], "href": f"{ROOT}/queues/{body['name']}"}
        if detailed:
            shown["metadata"] = body["metadata"]
        return shown


def client_id(request: ApiRequest) -> str:
    value = request.headers.get("client-id")
    if not value:
        raise BadRequest("The Client-ID header is required.")
    return value
