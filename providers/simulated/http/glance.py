"""Glance (image v2) over HTTP: images made (`queued`), imported from a URL (`web-download`:
`importing`, then `active`), changed by JSON patch, deleted; lists with name, status, visibility and
tag filters and Glance's own `next` pagination (a path relative to the service root)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, CloudError
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import next_url, page_limit
from providers.simulated.http.routing import Route
from providers.simulated.images import READ_ONLY, ImageForbidden
from providers.simulated.inventory import Body

SERVICE = "glance"
FILTERS = ("status", "visibility", "disk_format", "container_format")
PATCH_TYPE = "application/openstack-images-v2.1-json-patch"


class UnsupportedMedia(CloudError):
    status = 415
    code = "unsupportedMediaType"


class Glance:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", "/image", self.versions, SERVICE, public=True),
            Route.of("GET", "/image/versions", self.versions, SERVICE, public=True),
            Route.of("GET", "/image/v2/images", self.list_images, SERVICE),
            Route.of("GET", "/image/v2/images/{id}", self.get_image, SERVICE),
            Route.of("POST", "/image/v2/images", self.create_image, SERVICE),
            Route.of("PATCH", "/image/v2/images/{id}", self.patch_image, SERVICE),
            Route.of("DELETE", "/image/v2/images/{id}", self.delete_image, SERVICE),
            Route.of("POST", "/image/v2/images/{id}/import", self.import_image, SERVICE),
        ]

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {
            "id": "v2.16",
            "status": "CURRENT",
            "links": [{"rel": "self", "href": request.url("/image/v2/")}],
        }
        return reply(200, {"versions": [version]})

    def list_images(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        wanted = {key: request.first(key) for key in FILTERS if request.first(key)}
        items, more = self.cloud.page(
            "images",
            limit=page_limit(request),
            marker=request.first("marker"),
            name=request.first("name"),
            tags=request.all("tag"),
            predicate=(lambda body: all(body.get(key) == value for key, value in wanted.items()))
            if wanted
            else None,
        )
        body: dict[str, Any] = {
            "images": [self._image(image) for image in items],
            "first": "/v2/images",
            "schema": "/v2/schemas/images",
        }
        following = next_url(request, items, more)
        if following:
            body["next"] = following.removeprefix(request.base_url).removeprefix("/image")
        return reply(200, body)

    def get_image(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, self._image(self.cloud.get("images", params["id"])))

    def create_image(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        if not isinstance(request.body, Mapping):
            raise BadRequest("Malformed request body: expected an image object.")
        read_only = sorted(set(request.body) & READ_ONLY - {"id"})
        if read_only:
            raise ImageForbidden(f"Attribute '{read_only[0]}' is read-only.")
        return reply(201, self._image(self.cloud.create("images", dict(request.body))))

    def patch_image(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        if request.headers.get("content-type") != PATCH_TYPE:
            raise UnsupportedMedia(f"Content type {request.headers.get('content-type')} is not {PATCH_TYPE}.")
        changes: dict[str, Any] = {}
        removed: list[str] = []
        for operation in request.body if isinstance(request.body, list) else [None]:
            if not isinstance(operation, Mapping) or operation.get("op") not in ("add", "replace", "remove"):
                raise BadRequest(
                    "Malformed JSON patch: each operation is add, replace or remove with a path."
                )
            name = str(operation.get("path", "")).removeprefix("/")
            if operation["op"] == "remove":
                removed.append(name)
            else:
                changes[name] = operation.get("value")
        updated = self.cloud.update("images", params["id"], {**changes, "_removed": removed})
        return reply(200, self._image(updated))

    def delete_image(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.delete("images", params["id"])
        return reply(204)

    def import_image(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        body = request.body if isinstance(request.body, Mapping) else {}
        self.cloud.act("images", params["id"], "import", body)
        return reply(202)

    @staticmethod
    def _image(body: Body) -> Body:
        return {
            **body,
            "self": f"/v2/images/{body['id']}",
            "file": f"/v2/images/{body['id']}/file",
            "schema": "/v2/schemas/image",
        }
