"""Magnum (container-infra v1) over HTTP, under `/container-infra/v1`: cluster templates and
clusters by uuid (or name, as Magnum takes either). A cluster's create and update answer 202 with
its uuid alone; changes are JSON patches of `replace` and `remove` operations. Lists are paged by
`limit` and `marker` with a `next` URL, as Magnum pages them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import next_url, page_limit
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body

SERVICE = "magnum"
ROOT = "/container-infra/v1"
MAX_VERSION = "1.11"
HIDDEN_FIELDS = ("id", "updated")  # the cloud's own bookkeeping, not Magnum's fields


class Magnum:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        routes = [
            Route.of("GET", "/container-infra", self.versions, SERVICE, public=True),
            Route.of("GET", ROOT, self.version, SERVICE, public=True),
        ]
        for collection in ("clustertemplates", "clusters"):
            item = f"{ROOT}/{collection}/{{ident}}"
            routes += [
                Route.of("GET", f"{ROOT}/{collection}", self._list(collection), SERVICE),
                Route.of("POST", f"{ROOT}/{collection}", self._create(collection), SERVICE),
                Route.of("GET", item, self._get(collection), SERVICE),
                Route.of("PATCH", item, self._update(collection), SERVICE),
                Route.of("DELETE", item, self._delete(collection), SERVICE),
            ]
        return routes

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {
            "id": "v1",
            "status": "CURRENT",
            "min_version": "1.1",
            "max_version": MAX_VERSION,
            "links": [{"rel": "self", "href": request.url(ROOT + "/")}],
        }
        return reply(200, {"versions": [version], "name": "OpenStack Magnum API"})

    def version(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return self.versions(request, _)

    def _list(self, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            items, more = self.cloud.page(
                collection, limit=page_limit(request), marker=request.first("marker")
            )
            following = next_url(request, items, more)
            return reply(200, {collection: [shown(item) for item in items], "next": following})

        return handler

    def _create(self, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            created = self.cloud.create(collection, request_body(request))
            if collection == "clusters":
                return reply(202, {"uuid": created["uuid"]})
            return reply(201, shown(created))

        return handler

    def _get(self, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            return reply(200, shown(self._find(collection, params["ident"])))

        return handler

    def _update(self, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            found = self._find(collection, params["ident"])
            updated = self.cloud.update(collection, found["id"], patched(request.body))
            if collection == "clusters":
                return reply(202, {"uuid": updated["uuid"]})
            return reply(200, shown(updated))

        return handler

    def _delete(self, collection: str) -> Any:
        def handler(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self.cloud.delete(collection, self._find(collection, params["ident"])["id"])
            return reply(204)

        return handler

    def _find(self, collection: str, ident: str) -> Body:
        try:
            return self.cloud.get(collection, ident)
        except ItemNotFound:
            named = self.cloud.list(collection, where={"name": ident})
            if not named:
                what = "ClusterTemplate" if collection == "clustertemplates" else "Cluster"
                raise ItemNotFound(f"{what} {ident} could not be found.") from None
            return named[0]


def request_body(request: ApiRequest) -> dict[str, Any]:
    if not isinstance(request.body, Mapping):
        raise BadRequest("Invalid input: the request body must be a JSON object.")
    return dict(request.body)


def patched(body: Any) -> dict[str, Any]:
    """The fields a JSON patch of `replace`, `add` and `remove` operations sets (None: removed)."""
    if not isinstance(body, list):
        raise BadRequest("Invalid input: a JSON patch (a list of operations) is expected.")
    fields: dict[str, Any] = {}
    for operation in body:
        kind = operation.get("op") if isinstance(operation, Mapping) else None
        path = str(operation.get("path", "")) if isinstance(operation, Mapping) else ""
        if kind not in ("replace", "add", "remove") or not path.startswith("/") or "/" in path[1:]:
            raise BadRequest(f"Couldn't apply patch '{operation}'.")
        fields[path[1:]] = None if kind == "remove" else operation.get("value")
    return fields


def shown(body: Body) -> Body:
    return {key: value for key, value in body.items() if key not in HIDDEN_FIELDS}
