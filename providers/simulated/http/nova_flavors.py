"""Nova's flavor writes over HTTP, under `/compute/v2.1/flavors`: create and delete, the
description changed in place, extra specs (`os-extra_specs`), and private flavors' project access
(`os-flavor-access`, `addTenantAccess` / `removeTenantAccess` actions). Reading flavors is in `nova`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.flavors import flavor_access
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.inventory import Body

COLLECTION = "flavors"
VersionedHandler = Callable[[ApiRequest, Mapping[str, str], str], ApiResponse]
ShownFlavor = Callable[[ApiRequest, Body, str], Body]
ACCESS_ACTIONS = ("addTenantAccess", "removeTenantAccess")


class FlavorsFace:
    def __init__(self, cloud: SimulatedCloud, shown: ShownFlavor) -> None:
        self.cloud = cloud
        self.shown = shown

    def table(self) -> list[tuple[str, str, VersionedHandler]]:
        return [
            ("POST", "/flavors", self.create_flavor),
            ("PUT", "/flavors/{id}", self.update_flavor),
            ("DELETE", "/flavors/{id}", self.delete_flavor),
            ("POST", "/flavors/{id}/action", self.flavor_action),
            ("GET", "/flavors/{id}/os-flavor-access", self.list_access),
            ("GET", "/flavors/{id}/os-extra_specs", self.list_specs),
            ("POST", "/flavors/{id}/os-extra_specs", self.set_specs),
            ("GET", "/flavors/{id}/os-extra_specs/{key}", self.get_spec),
            ("PUT", "/flavors/{id}/os-extra_specs/{key}", self.put_spec),
            ("DELETE", "/flavors/{id}/os-extra_specs/{key}", self.delete_spec),
        ]

    def create_flavor(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        created = self.cloud.create(COLLECTION, request.member("flavor"))
        return reply(200, {"flavor": self.shown(request, created, version)})

    def update_flavor(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        updated = self.cloud.update(COLLECTION, params["id"], request.member("flavor"))
        return reply(200, {"flavor": self.shown(request, updated, version)})

    def delete_flavor(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.delete(COLLECTION, params["id"])
        return reply(202)

    def flavor_action(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        if not isinstance(request.body, Mapping) or len(request.body) != 1:
            raise BadRequest("Malformed request body: one action expected.")
        action, argument = next(iter(request.body.items()))
        if action not in ACCESS_ACTIONS or not isinstance(argument, Mapping):
            raise BadRequest(f"There is no such action: {action}")
        updated = self.cloud.act(COLLECTION, params["id"], action, {action: dict(argument)})
        return reply(200, {"flavor_access": flavor_access(updated)})

    def list_access(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        flavor = self.cloud.get(COLLECTION, params["id"])
        if flavor["os-flavor-access:is_public"]:
            raise ItemNotFound("Access list not available for public flavors.")
        return reply(200, {"flavor_access": flavor_access(flavor)})

    def list_specs(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"extra_specs": self.cloud.get(COLLECTION, params["id"])["extra_specs"]})

    def set_specs(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        specs: Any = (request.body or {}).get("extra_specs") if isinstance(request.body, Mapping) else None
        updated = self.cloud.act(COLLECTION, params["id"], "set_extra_specs", {"extra_specs": specs})
        return reply(200, {"extra_specs": updated["extra_specs"]})

    def get_spec(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        specs = self.cloud.get(COLLECTION, params["id"])["extra_specs"]
        if params["key"] not in specs:
            raise ItemNotFound(f"Flavor {params['id']} has no extra specs with key {params['key']}.")
        return reply(200, {params["key"]: specs[params["key"]]})

    def put_spec(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        body = request.body if isinstance(request.body, Mapping) else {}
        if list(body) != [params["key"]]:
            raise BadRequest("Request body and URI mismatch")
        self.cloud.act(COLLECTION, params["id"], "set_extra_specs", {"extra_specs": dict(body)})
        return reply(200, dict(body))

    def delete_spec(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.act(COLLECTION, params["id"], "unset_extra_spec", {"key": params["key"]})
        return reply(200)
