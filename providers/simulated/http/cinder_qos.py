"""Cinder's QoS specs over HTTP, under `/volume/v3/{project_id}/qos-specs`, with Cinder's request
shapes: keys set by `PUT`, removed by `PUT .../delete_keys`, volume types associated and
disassociated by `GET` calls with `vol_type_id`, as Cinder's API has them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.inventory import Body

COLLECTION = "qos_specs"
VersionedHandler = Callable[[ApiRequest, Mapping[str, str], str], ApiResponse]


class QosSpecsFace:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def table(self) -> list[tuple[str, str, VersionedHandler]]:
        return [
            ("GET", "/qos-specs", self.list_specs),
            ("POST", "/qos-specs", self.create_specs),
            ("GET", "/qos-specs/{id}", self.get_specs),
            ("PUT", "/qos-specs/{id}", self.set_keys),
            ("DELETE", "/qos-specs/{id}", self.delete_specs),
            ("PUT", "/qos-specs/{id}/delete_keys", self.delete_keys),
            ("GET", "/qos-specs/{id}/associations", self.associations),
            ("GET", "/qos-specs/{id}/associate", self._association("associate")),
            ("GET", "/qos-specs/{id}/disassociate", self._association("disassociate")),
            ("GET", "/qos-specs/{id}/disassociate_all", self._association("disassociate_all")),
        ]

    def list_specs(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"qos_specs": [shown(body) for body in self.cloud.list(COLLECTION)]})

    def create_specs(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"qos_specs": shown(self.cloud.create(COLLECTION, request.member("qos_specs")))})

    def get_specs(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"qos_specs": shown(self.cloud.get(COLLECTION, params["id"]))})

    def set_keys(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        changes = request.member("qos_specs")
        self.cloud.act(COLLECTION, params["id"], "set_keys", {"specs": changes})
        return reply(200, {"qos_specs": changes})

    def delete_keys(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        keys: Any = request.body.get("keys") if isinstance(request.body, Mapping) else None
        if not isinstance(keys, list):
            raise BadRequest("Malformed request body: keys must be a list.")
        self.cloud.act(COLLECTION, params["id"], "delete_keys", {"keys": keys})
        return reply(202)

    def delete_specs(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        in_use = self._associations(params["id"])
        if in_use and request.first("force") not in ("True", "true", "1"):
            raise BadRequest(f"QoS Specs {params['id']} is still associated with entities.")
        if in_use:
            self.cloud.act(COLLECTION, params["id"], "disassociate_all", {})
        self.cloud.delete(COLLECTION, params["id"])
        return reply(202)

    def associations(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"qos_associations": self._associations(params["id"])})

    def _association(self, action: str) -> VersionedHandler:
        def handle(request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
            if action != "disassociate_all" and not request.first("vol_type_id"):
                raise BadRequest("Malformed request url: vol_type_id is required.")
            self.cloud.act(COLLECTION, params["id"], action, {"vol_type_id": request.first("vol_type_id")})
            return reply(202)

        return handle

    def _associations(self, specs_id: str) -> list[dict[str, str]]:
        self.cloud.get(COLLECTION, specs_id)
        return [
            {"association_type": "volume_type", "name": vtype["name"], "id": vtype["id"]}
            for vtype in self.cloud.list("volume_types", where={"qos_specs_id": specs_id})
        ]


def shown(body: Body) -> Body:
    return {key: value for key, value in body.items() if key[0] != "_"}
