"""Cinder (block storage v3) over HTTP, under `/volume/v3/{project_id}`: volumes with actions and
metadata, volume types (`cinder_types`), backups and snapshots (made, read and deleted); name,
status and `metadata` filters (backups: name, status and volume_id); microversions up to 3.70.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.http import microversions
from providers.simulated.http.cinder_qos import QosSpecsFace
from providers.simulated.http.cinder_types import VolumeTypesFace
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import links, next_url, page_limit
from providers.simulated.http.quota_faces import QuotaFace
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body
from providers.simulated.quota_sets import VOLUME_QUOTAS

SERVICE = "cinder"
MIN_VERSION, MAX_VERSION = "3.0", "3.70"
VOLUME_ACTIONS = ("os-extend", "os-retype", "os-set_bootable", "os-update_readonly_flag")
BACKUP_FILTERS = ("name", "status", "volume_id")  # Cinder's resource filters for backups
VERSIONED = Callable[[ApiRequest, Mapping[str, str], str], ApiResponse]


def metadata_filter(text: str | None) -> dict[str, str]:
    """Cinder's `metadata` query value: a JSON or Python-literal object of key to value."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError) as error:
            raise BadRequest(
                f"Invalid metadata filter {text!r}: an object of key to value is expected."
            ) from error
    if not isinstance(value, dict):
        raise BadRequest(f"Invalid metadata filter {text!r}: an object of key to value is expected.")
    return {str(key): str(item) for key, item in value.items()}


class Cinder:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        base = "/volume/v3/{project}"
        table: list[tuple[str, str, VERSIONED]] = [
            ("GET", "/volumes", self.list_volumes),
            ("GET", "/volumes/detail", self.list_volumes),
            ("POST", "/volumes", self.create_volume),
            ("GET", "/volumes/{id}", self.get_volume),
            ("PUT", "/volumes/{id}", self.update_volume),
            ("DELETE", "/volumes/{id}", self.delete_volume),
            ("POST", "/volumes/{id}/action", self.volume_action),
            ("GET", "/volumes/{id}/metadata", self.get_metadata),
            ("POST", "/volumes/{id}/metadata", self.merge_metadata),
            ("PUT", "/volumes/{id}/metadata", self.replace_metadata),
            ("GET", "/backups", self.list_backups),
            ("GET", "/backups/detail", self.list_backups),
            ("POST", "/backups", self.create_backup),
            ("GET", "/backups/{id}", self.get_backup),
            ("DELETE", "/backups/{id}", self.delete_backup),
            *VolumeTypesFace(self.cloud).table(),
            *QosSpecsFace(self.cloud).table(),
            *QuotaFace(self.cloud, VOLUME_QUOTAS, "quota_set").versioned(),
            ("POST", "/snapshots", self.create_snapshot),
            ("GET", "/snapshots/{id}", self.get_snapshot),
            ("DELETE", "/snapshots/{id}", self.delete_snapshot),
        ]
        routes = [
            Route.of("GET", "/volume", self.versions, SERVICE, public=True),
            Route.of("GET", "/volume/v3", self.version, SERVICE, public=True),
            Route.of("GET", base, self.version, SERVICE, public=True),
        ]
        routes += [
            Route.of(method, base + path, self._versioned(handler), SERVICE)
            for method, path, handler in table
        ]
        return routes

    def _versioned(self, handler: VERSIONED) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def call(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            version = microversions.requested(request, "volume", None, MIN_VERSION, MAX_VERSION)
            return microversions.stamped(handler(request, params, version), "volume", None, version)

        return call

    def _version_body(self, request: ApiRequest) -> dict[str, Any]:
        return {
            "id": "v3.0",
            "status": "CURRENT",
            "version": MAX_VERSION,
            "min_version": MIN_VERSION,
            "updated": "2023-08-31T00:00:00Z",
            "links": [{"rel": "self", "href": request.url("/volume/v3/")}],
            "media-types": [
                {"base": "application/json", "type": "application/vnd.openstack.volume+json;version=3"}
            ],
        }

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return reply(300, {"versions": [self._version_body(request)]})

    def version(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"version": self._version_body(request)})

    def list_volumes(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        metadata = metadata_filter(request.first("metadata"))
        status = request.first("status")
        items, more = self.cloud.page(
            "volumes",
            limit=page_limit(request),
            marker=request.first("marker"),
            name=request.first("name"),
            tags=[f"{key}={value}" for key, value in metadata.items()],
            predicate=(lambda body: body["status"] == status) if status else None,
            newest_first=True,  # Cinder sorts by created_at, descending
        )
        detailed = request.path.endswith("/detail")
        shown = [self._volume(request, body) if detailed else self._summary(request, body) for body in items]
        body: dict[str, Any] = {"volumes": shown}
        following = next_url(request, items, more)
        if following:
            body["volumes_links"] = links(following)
        return reply(200, body)

    def create_volume(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(
            202, {"volume": self._volume(request, self.cloud.create("volumes", request.member("volume")))}
        )

    def get_volume(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"volume": self._volume(request, self.cloud.get("volumes", params["id"]))})

    def update_volume(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        updated = self.cloud.update("volumes", params["id"], request.member("volume"))
        return reply(200, {"volume": self._volume(request, updated)})

    def delete_volume(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.delete("volumes", params["id"])
        return reply(202)

    def volume_action(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        if not isinstance(request.body, Mapping) or len(request.body) != 1:
            raise BadRequest("Malformed request body: one action expected.")
        action, argument = next(iter(request.body.items()))
        if action not in VOLUME_ACTIONS:
            raise BadRequest(f"There is no such action: {action}")
        self.cloud.act("volumes", params["id"], action, argument or {})
        return reply(202)

    def get_metadata(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"metadata": self.cloud.get("volumes", params["id"])["metadata"]})

    def merge_metadata(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        metadata = (request.body or {}).get("metadata") or {}
        updated = self.cloud.act("volumes", params["id"], "merge_metadata", {"metadata": metadata})
        return reply(200, {"metadata": updated["metadata"]})

    def replace_metadata(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        metadata = (request.body or {}).get("metadata") or {}
        updated = self.cloud.act("volumes", params["id"], "set_metadata", {"metadata": metadata})
        return reply(200, {"metadata": updated["metadata"]})

    def list_backups(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        wanted = {key: value for key in BACKUP_FILTERS if (value := request.first(key)) is not None}
        items, more = self.cloud.page(
            "backups",
            limit=page_limit(request),
            marker=request.first("marker"),
            predicate=(lambda body: all(body.get(key) == value for key, value in wanted.items())),
            newest_first=True,
        )
        detailed = request.path.endswith("/detail")
        shown = [
            self._backup(request, body) if detailed else self._summary(request, body, "backups")
            for body in items
        ]
        body: dict[str, Any] = {"backups": shown}
        following = next_url(request, items, more)
        if following:
            body["backups_links"] = links(following)
        return reply(200, body)

    def create_backup(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        created = self.cloud.create("backups", request.member("backup"))
        return reply(202, {"backup": self._summary(request, created, "backups")})

    def get_backup(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"backup": self._backup(request, self.cloud.get("backups", params["id"]))})

    def delete_backup(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.delete("backups", params["id"])
        return reply(202)

    def create_snapshot(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(202, {"snapshot": self.cloud.create("snapshots", request.member("snapshot"))})

    def get_snapshot(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"snapshot": self.cloud.get("snapshots", params["id"])})

    def delete_snapshot(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.delete("snapshots", params["id"])
        return reply(202)

    def _links(self, request: ApiRequest, item_id: str, collection: str = "volumes") -> list[dict[str, str]]:
        project = self.cloud.settings.project_id
        return [{"rel": "self", "href": request.url(f"/volume/v3/{project}/{collection}/{item_id}")}]

    def _summary(self, request: ApiRequest, body: Body, collection: str = "volumes") -> Body:
        return {"id": body["id"], "name": body["name"], "links": self._links(request, body["id"], collection)}

    def _volume(self, request: ApiRequest, body: Body) -> Body:
        return {**body, "links": self._links(request, body["id"])}

    def _backup(self, request: ApiRequest, body: Body) -> Body:
        return {**body, "links": self._links(request, body["id"], "backups")}
