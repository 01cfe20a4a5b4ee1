"""Glance (image v2) over HTTP: list and show images, with name, status, visibility and tag filters
and Glance's own `next` pagination (a path relative to the service root)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import next_url, page_limit
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body

SERVICE = "glance"
FILTERS = ("status", "visibility", "disk_format", "container_format")


class Glance:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", "/image", self.versions, SERVICE, public=True),
            Route.of("GET", "/image/versions", self.versions, SERVICE, public=True),
            Route.of("GET", "/image/v2/images", self.list_images, SERVICE),
            Route.of("GET", "/image/v2/images/{id}", self.get_image, SERVICE),
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

    @staticmethod
    def _image(body: Body) -> Body:
        return {
            **body,
            "self": f"/v2/images/{body['id']}",
            "file": f"/v2/images/{body['id']}/file",
            "schema": "/v2/schemas/image",
        }
