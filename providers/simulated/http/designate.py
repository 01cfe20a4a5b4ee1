"""Designate (DNS v2) over HTTP, under `/dns/v2`: zones and their record sets, each answered 202
while PENDING; lists paged by `limit` and `marker` with a `links.next` URL, filtered by name,
type, status and description, as Designate filters them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import next_url, page_limit
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body

SERVICE = "designate"
ROOT = "/dns/v2"
FILTERS = ("name", "type", "status", "description", "email", "zone_id")


class Designate:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        zone_sets = ROOT + "/zones/{zone_id}/recordsets"
        return [
            Route.of("GET", "/dns", self.versions, SERVICE, public=True),
            Route.of("GET", ROOT, self.version, SERVICE, public=True),
            Route.of("GET", ROOT + "/zones", self.list_zones, SERVICE),
            Route.of("POST", ROOT + "/zones", self.create_zone, SERVICE),
            Route.of("GET", ROOT + "/zones/{id}", self.get_zone, SERVICE),
            Route.of("PATCH", ROOT + "/zones/{id}", self.update_zone, SERVICE),
            Route.of("DELETE", ROOT + "/zones/{id}", self.delete_zone, SERVICE),
            Route.of("GET", ROOT + "/recordsets", self.list_recordsets, SERVICE),
            Route.of("GET", zone_sets, self.list_recordsets, SERVICE),
            Route.of("POST", zone_sets, self.create_recordset, SERVICE),
            Route.of("GET", zone_sets + "/{id}", self.get_recordset, SERVICE),
            Route.of("PUT", zone_sets + "/{id}", self.update_recordset, SERVICE),
            Route.of("DELETE", zone_sets + "/{id}", self.delete_recordset, SERVICE),
        ]

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {
            "id": "v2.1",
            "status": "CURRENT",
            "links": [{"rel": "self", "href": request.url(ROOT + "/")}],
        }
        return reply(200, {"versions": [version]})

    def version(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return self.versions(request, _)

    # zones
    def list_zones(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return self._listed(request, "zones", {})

    def create_zone(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(202, self._shown(request, "zones", self.cloud.create("zones", self._body(request))))

    def get_zone(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, self._shown(request, "zones", self.cloud.get("zones", params["id"])))

    def update_zone(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        updated = self.cloud.update("zones", params["id"], self._body(request))
        return reply(202, self._shown(request, "zones", updated))

    def delete_zone(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        zone = self.cloud.get("zones", params["id"])
        self.cloud.delete("zones", params["id"])
        return reply(202, self._shown(request, "zones", {**zone, "status": "PENDING", "action": "DELETE"}))

    # record sets
    def list_recordsets(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        if "zone_id" in params:
            self.cloud.get("zones", params["zone_id"])
        return self._listed(
            request, "recordsets", {"zone_id": params["zone_id"]} if "zone_id" in params else {}
        )

    def create_recordset(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        created = self.cloud.create("recordsets", {**self._body(request), "zone_id": params["zone_id"]})
        return reply(202, self._shown(request, "recordsets", created))

    def get_recordset(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, self._shown(request, "recordsets", self._recordset(params)))

    def update_recordset(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self._recordset(params)
        updated = self.cloud.update("recordsets", params["id"], self._body(request))
        return reply(202, self._shown(request, "recordsets", updated))

    def delete_recordset(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        recordset = self._recordset(params)
        self.cloud.delete("recordsets", params["id"])
        return reply(
            202, self._shown(request, "recordsets", {**recordset, "status": "PENDING", "action": "DELETE"})
        )

    def _recordset(self, params: Mapping[str, str]) -> Body:
        recordset = self.cloud.get("recordsets", params["id"])
        if recordset["zone_id"] != params["zone_id"]:
            raise ItemNotFound(f"Could not find RecordSet {params['id']} in zone {params['zone_id']}")
        return recordset

    # shared
    def _listed(self, request: ApiRequest, collection: str, fixed: Mapping[str, str]) -> ApiResponse:
        wanted = {**{key: request.first(key) for key in FILTERS if request.first(key)}, **fixed}
        items, more = self.cloud.page(
            collection,
            limit=page_limit(request),
            marker=request.first("marker"),
            predicate=(lambda body: all(str(body.get(key)) == value for key, value in wanted.items()))
            if wanted
            else None,
        )
        links: dict[str, str] = {"self": request.url(request.path)}
        following = next_url(request, items, more)
        if following:
            links["next"] = following
        body = {collection: [self._shown(request, collection, item) for item in items], "links": links}
        return reply(200, {**body, "metadata": {"total_count": len(items)}})

    @staticmethod
    def _body(request: ApiRequest) -> dict[str, Any]:
        if not isinstance(request.body, Mapping):
            raise BadRequest("Malformed request body: expected a JSON object.")
        return dict(request.body)

    @staticmethod
    def _shown(request: ApiRequest, collection: str, body: Body) -> Body:
        if collection == "zones":
            path = f"{ROOT}/zones/{body['id']}"
        else:
            path = f"{ROOT}/zones/{body['zone_id']}/recordsets/{body['id']}"
        return {**body, "links": {"self": request.url(path)}}
