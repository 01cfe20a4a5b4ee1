"""Blazar (reservation v1) over HTTP, under `/reservation/v1`: reservable hosts (`/os-hosts`,
their extra capabilities flat in the body) and leases, each made, listed, shown, changed and
deleted; a lease's status and its reservations' follow its dates at every read. Blazar does not
page its lists. Errors are Blazar's bodies (`error_code`, `error_message`, `error_name`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.routing import Route
from providers.simulated.reservations import host_shown, shown

SERVICE = "blazar"
ROOT = "/reservation/v1"


class Blazar:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", "/reservation", self.versions, SERVICE, public=True),
            Route.of("GET", ROOT, self.versions, SERVICE, public=True),
            Route.of("POST", ROOT + "/os-hosts", self.create_host, SERVICE),
            Route.of("GET", ROOT + "/os-hosts", self.list_hosts, SERVICE),
            Route.of("GET", ROOT + "/os-hosts/{id}", self.get_host, SERVICE),
            Route.of("PUT", ROOT + "/os-hosts/{id}", self.update_host, SERVICE),
            Route.of("DELETE", ROOT + "/os-hosts/{id}", self.delete_host, SERVICE),
            Route.of("POST", ROOT + "/leases", self.create_lease, SERVICE),
            Route.of("GET", ROOT + "/leases", self.list_leases, SERVICE),
            Route.of("GET", ROOT + "/leases/{id}", self.get_lease, SERVICE),
            Route.of("PUT", ROOT + "/leases/{id}", self.update_lease, SERVICE),
            Route.of("DELETE", ROOT + "/leases/{id}", self.delete_lease, SERVICE),
        ]

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {"id": "v1.0", "status": "CURRENT", "links": [{"rel": "self", "href": request.url(ROOT)}]}
        return reply(200, {"versions": [version]})

    # hosts
    def create_host(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"host": host_shown(self.cloud.create("reservable_hosts", self._body(request)))})

    def list_hosts(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"hosts": [host_shown(body) for body in self.cloud.list("reservable_hosts")]})

    def get_host(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"host": host_shown(self.cloud.get("reservable_hosts", params["id"]))})

    def update_host(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        body = self.cloud.update("reservable_hosts", params["id"], self._body(request))
        return reply(200, {"host": host_shown(body)})

    def delete_host(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.delete("reservable_hosts", params["id"])
        return reply(204)

    # leases
    def create_lease(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        created = self.cloud.create("leases", self._body(request))
        return reply(201, {"lease": shown(created, self.cloud.clock())})

    def list_leases(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        now = self.cloud.clock()
        return reply(200, {"leases": [shown(body, now) for body in self.cloud.list("leases")]})

    def get_lease(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"lease": shown(self.cloud.get("leases", params["id"]), self.cloud.clock())})

    def update_lease(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        body = self.cloud.update("leases", params["id"], self._body(request))
        return reply(200, {"lease": shown(body, self.cloud.clock())})

    def delete_lease(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.delete("leases", params["id"])
        return reply(204)

    @staticmethod
    def _body(request: ApiRequest) -> dict[str, Any]:
        if not isinstance(request.body, Mapping):
            raise BadRequest("Malformed request body: expected a JSON object.")
        return dict(request.body)
