"""Glance (image v2) over HTTP: list and show images, with name, status, visibility and tag filters
and Glance's own `next` pagination (a path relative to the service root)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import page_of
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body

SERVICE = "glance"


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
        found = self.cloud.list("images", name=request.first("name"), tags=request.all("tag"))
        for key in ("status", "visibility", "disk_format", "container_format"):
            wanted = request.first(key)
            if wanted:
                found = [body for body in found if body.get(key) == wanted]
        page = page_of(request, found, request.path)
        body: dict[str, Any] = {
            "images": [self._image(image) for image in page.items],
            "first": "/v2/images",
            "schema": "/v2/schemas/images",
        }
        if page.next_url:
            body["next"] = page.next_url.removeprefix(request.base_url).removeprefix("/image")
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
