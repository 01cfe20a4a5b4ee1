"""Cinder's volume types over HTTP, under `/volume/v3/{project_id}/types`: the types themselves,
their extra specs, project access and encryption spec, with Cinder's request and answer shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.inventory import Body
from providers.simulated.volume_types import PROJECTS, PUBLIC_KEY

COLLECTION = "volume_types"
HIDDEN = frozenset({"encryption", PROJECTS})  # held by the model, shown through their own calls
VersionedHandler = Callable[[ApiRequest, Mapping[str, str], str], ApiResponse]


class VolumeTypesFace:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def table(self) -> list[tuple[str, str, VersionedHandler]]:
        return [
            ("GET", "/types", self.list_types),
            ("POST", "/types", self.create_type),
            ("GET", "/types/{id}", self.get_type),
            ("PUT", "/types/{id}", self.update_type),
            ("DELETE", "/types/{id}", self.delete_type),
            ("GET", "/types/{id}/extra_specs", self.get_extra_specs),
            ("POST", "/types/{id}/extra_specs", self.set_extra_specs),
            ("DELETE", "/types/{id}/extra_specs/{key}", self.delete_extra_spec),
            ("POST", "/types/{id}/action", self.type_action),
            ("GET", "/types/{id}/os-volume-type-access", self.list_access),
            ("GET", "/types/{id}/encryption", self.get_encryption),
            ("POST", "/types/{id}/encryption", self.create_encryption),
            ("PUT", "/types/{id}/encryption/{encryption_id}", self.update_encryption),
            ("DELETE", "/types/{id}/encryption/{encryption_id}", self.delete_encryption),
        ]

    def list_types(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"volume_types": [shown_type(body) for body in self.cloud.list(COLLECTION)]})

    def create_type(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(
            200, {"volume_type": shown_type(self.cloud.create(COLLECTION, request.member("volume_type")))}
        )

    def get_type(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"volume_type": shown_type(self.cloud.get(COLLECTION, params["id"]))})

    def update_type(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        change = request.member("volume_type")
        if PUBLIC_KEY in change:
            change["is_public"] = change.pop(PUBLIC_KEY)
        return reply(200, {"volume_type": shown_type(self.cloud.update(COLLECTION, params["id"], change))})

    def delete_type(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.delete(COLLECTION, params["id"])
        return reply(202)

    def get_extra_specs(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"extra_specs": self.cloud.get(COLLECTION, params["id"])["extra_specs"]})

    def set_extra_specs(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        specs = request.member("extra_specs")
        self.cloud.act(COLLECTION, params["id"], "set_extra_specs", {"extra_specs": specs})
        return reply(200, {"extra_specs": specs})

    def delete_extra_spec(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.act(COLLECTION, params["id"], "delete_extra_spec", {"key": params["key"]})
        return reply(202)

    def type_action(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        if not isinstance(request.body, Mapping) or len(request.body) != 1:
            raise BadRequest("Malformed request body: one action expected.")
        action, argument = next(iter(request.body.items()))
        if action not in ("addProjectAccess", "removeProjectAccess"):
            raise BadRequest(f"There is no such action: {action}")
        self.cloud.act(COLLECTION, params["id"], action, dict(argument or {}))
        return reply(202)

    def list_access(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        body = self.cloud.get(COLLECTION, params["id"])
        if body["is_public"]:
            raise ItemNotFound("Access list not available for public volume types.")
        access = [{"volume_type_id": body["id"], "project_id": project} for project in body[PROJECTS]]
        return reply(200, {"volume_type_access": access})

    def get_encryption(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, self.cloud.get(COLLECTION, params["id"])["encryption"] or {})

    def create_encryption(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        body = self.cloud.act(COLLECTION, params["id"], "create_encryption", request.member("encryption"))
        return reply(200, {"encryption": body["encryption"]})

    def update_encryption(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self._require_encryption(params)
        change = request.member("encryption")
        body = self.cloud.act(COLLECTION, params["id"], "update_encryption", change)
        return reply(200, {"encryption": {key: body["encryption"][key] for key in change}})

    def delete_encryption(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self._require_encryption(params)
        self.cloud.act(COLLECTION, params["id"], "delete_encryption", {})
        return reply(202)

    def _require_encryption(self, params: Mapping[str, str]) -> None:
        encryption = self.cloud.get(COLLECTION, params["id"])["encryption"]
        if not encryption or encryption["encryption_id"] != params["encryption_id"]:
            raise ItemNotFound(f"Volume type encryption for type {params['id']} does not exist.")


def shown_type(body: Body) -> dict[str, Any]:
    shown = {key: value for key, value in body.items() if key not in HIDDEN}
    shown[PUBLIC_KEY] = body["is_public"]
    return shown
