"""Zun (container v1) over HTTP, under `/container/v1`: containers made (202, Creating), listed
paged by `limit` and `marker` with a `next` URL, shown by uuid or name, renamed or resized by
PATCH, attached to and detached from networks, and deleted (a running container only with
`force` or `stop`, as Zun requires). `nets` needs API version 1.2 or later, named in the
`OpenStack-API-Version` header. Bodies show `uuid`, never the cloud's internal fields.
Errors are Zun's `errors` list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.application_containers import COLLECTION
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import next_url, page_limit
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body

SERVICE = "zun"
ROOT = "/container/v1"
MAX_VERSION = "1.40"


def shown(body: Body) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "id" and not key.startswith("_")}


def api_version(request: ApiRequest) -> tuple[int, int]:
    """The version `OpenStack-API-Version: container 1.N` asks for (1.1 when none is named)."""
    words = (request.headers.get("openstack-api-version") or "").split()
    if len(words) == 2 and words[0] == "container":
        major, _, minor = words[1].partition(".")
        if major.isdigit() and minor.isdigit():
            return int(major), int(minor)
    return 1, 1


class Zun:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", "/container", self.versions, SERVICE, public=True),
            Route.of("GET", ROOT, self.versions, SERVICE, public=True),
            Route.of("POST", ROOT + "/containers", self.create, SERVICE),
            Route.of("GET", ROOT + "/containers", self.listed, SERVICE),
            Route.of("GET", ROOT + "/containers/{ident}", self.get, SERVICE),
            Route.of("PATCH", ROOT + "/containers/{ident}", self.patch, SERVICE),
            Route.of("DELETE", ROOT + "/containers/{ident}", self.delete, SERVICE),
            Route.of("POST", ROOT + "/containers/{ident}/{action}", self.network_action, SERVICE),
        ]

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {"id": "v1", "status": "CURRENT", "min_version": "1.1", "max_version": MAX_VERSION,
                   "links": [{"rel": "self", "href": request.url(ROOT)}]}  # fmt: skip
        return reply(200, {"versions": [version]})

    def create(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        if not isinstance(request.body, Mapping):
            raise BadRequest("Malformed request body: expected a JSON object.")
        if "nets" in request.body and api_version(request) < (1, 2):
            raise BadRequest("Invalid input for field/attribute nets: not allowed before API version 1.2.")
        return reply(202, shown(self.cloud.create(COLLECTION, request.body)))

    def listed(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        limit, marker = page_limit(request), request.first("marker")
        items, more = self.cloud.page(COLLECTION, limit=limit, marker=marker)
        body: dict[str, Any] = {"containers": [shown(item) for item in items]}
        following = next_url(request, items, more)
        if following:
            body["next"] = following
        return reply(200, body)

    def get(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, shown(self._find(params["ident"])))

    def patch(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        if not isinstance(request.body, Mapping):
            raise BadRequest("Malformed request body: expected a JSON object.")
        container = self._find(params["ident"])
        return reply(200, shown(self.cloud.update(COLLECTION, container["id"], request.body)))

    def delete(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        container = self._find(params["ident"])
        forced = any(request.first(flag) in ("true", "True", "1") for flag in ("force", "stop"))
        if container["status"] == "Running" and not forced:
            raise Conflict(f"Cannot delete container {container['uuid']} in Running state.")
        self.cloud.delete(COLLECTION, container["id"])
        return reply(204)

    def network_action(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        if params["action"] not in ("network_attach", "network_detach"):
            raise ItemNotFound(f"The resource could not be found: {request.path}")
        container = self._find(params["ident"])
        network = {"network": request.first("network")}
        self.cloud.act(COLLECTION, container["id"], params["action"], network)
        return reply(202)

    def _find(self, ident: str) -> Body:
        found = self.cloud.list(COLLECTION, ids=[ident]) or self.cloud.list(COLLECTION, name=ident)
        if not found:
            raise ItemNotFound(f"Container {ident} could not be found.")
        if len(found) > 1:
            raise Conflict("Multiple containers exist with same name. Please use the container uuid instead.")
        return found[0]
