"""Monasca (monitoring v2.0) over HTTP, under `/monitoring/v2.0`: notification methods and alarm
definitions. Lists are `{"elements": [...], "links": [...]}`, paged by `limit` and `offset` (the
last id seen), with a `next` link while more remain, as Monasca pages them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import page_limit
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body

SERVICE = "monasca"
ROOT = "/monitoring/v2.0"
COLLECTIONS = {"notification-methods": "notification_methods", "alarm-definitions": "alarm_definitions"}


class Monasca:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        routes = [
            Route.of("GET", "/monitoring", self.versions, SERVICE, public=True),
            Route.of("GET", ROOT, self.version, SERVICE, public=True),
        ]
        for path, collection in COLLECTIONS.items():
            item = f"{ROOT}/{path}/{{id}}"
            routes += [
                Route.of("GET", f"{ROOT}/{path}", self._list(path, collection), SERVICE),
                Route.of("POST", f"{ROOT}/{path}", self._create(path, collection), SERVICE),
                Route.of("GET", item, self._get(path, collection), SERVICE),
                Route.of("PUT", item, self._update(path, collection), SERVICE),
                Route.of("PATCH", item, self._update(path, collection), SERVICE),
                Route.of("DELETE", item, self._delete(collection), SERVICE),
            ]
        return routes

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {
            "id": "v2.0",
            "status": "CURRENT",
            "updated": "2014-07-18T00:00:00Z",
            "links": [{"rel": "self", "href": request.url(ROOT + "/")}],
        }
        return reply(200, {"versions": [version]})

    def version(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return self.versions(request, _)

    def _list(self, path: str, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            limit = page_limit(request)
            items, more = self.cloud.page(collection, limit=limit, marker=request.first("offset"))
            links = [{"rel": "self", "href": request.url(request.path)}]
            if more and items:
                following = {"limit": str(limit), "offset": items[-1]["id"]}
                links.append({"rel": "next", "href": request.url(request.path, following)})
            return reply(200, {"links": links, "elements": [shown(request, path, item) for item in items]})

        return handler

    def _create(self, path: str, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            return reply(201, shown(request, path, self.cloud.create(collection, request_body(request))))

        return handler

    def _get(self, path: str, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            return reply(200, shown(request, path, self.cloud.get(collection, params["id"])))

        return handler

    def _update(self, path: str, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            updated = self.cloud.update(collection, params["id"], request_body(request))
            return reply(200, shown(request, path, updated))

        return handler

    def _delete(self, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self.cloud.delete(collection, params["id"])
            return reply(204)

        return handler


def request_body(request: ApiRequest) -> dict[str, Any]:
    if not isinstance(request.body, Mapping):
        raise BadRequest("Invalid input: the request body must be a JSON object.")
    return dict(request.body)


def shown(request: ApiRequest, path: str, body: Body) -> Body:
    return {**body, "links": [{"rel": "self", "href": request.url(f"{ROOT}/{path}/{body['id']}")}]}
