"""Swift (object-store v1) over HTTP, under `/object-store/v1/AUTH_{project_id}`: the account
(container listing, metadata), containers (made by PUT, read by HEAD, listed objects, metadata by
POST, deleted when empty) and object deletion.

As in Swift, lists are JSON arrays in name order paged by `limit` (at most 10,000) and `marker` (the
last name seen), with no links: a short page is the last one. Metadata and ACLs travel as headers
(`X-Container-Meta-*`, `X-Container-Read`), and errors are Swift's short HTML pages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body
from providers.simulated.object_storage import object_totals

SERVICE = "swift"
ROOT = "/object-store/v1/AUTH_{project}"
LIST_LIMIT = 10_000
CONTAINER_META = "x-container-meta-"
ACCOUNT_META = "x-account-meta-"


class Swift:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        object_path = re.compile(
            r"^/object-store/v1/AUTH_(?P<project>[^/]+)/(?P<container>[^/]+)/(?P<object>.+)$"
        )
        return [
            Route.of("GET", ROOT, self.list_containers, SERVICE),
            Route.of("HEAD", ROOT, self.head_account, SERVICE),
            Route.of("POST", ROOT, self.post_account, SERVICE),
            Route.of("PUT", ROOT + "/{container}", self.put_container, SERVICE),
            Route.of("HEAD", ROOT + "/{container}", self.head_container, SERVICE),
            Route.of("GET", ROOT + "/{container}", self.list_objects, SERVICE),
            Route.of("POST", ROOT + "/{container}", self.post_container, SERVICE),
            Route.of("DELETE", ROOT + "/{container}", self.delete_container, SERVICE),
            Route("DELETE", object_path, self.delete_object, SERVICE, public=False),
        ]

    # the account
    def list_containers(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        containers = sorted(self.cloud.list("containers"), key=lambda body: body["name"])
        shown = [
            {"name": body["name"], "count": count, "bytes": size, "last_modified": body["updated_at"]}
            for body in containers
            for count, size in [object_totals(body)]
        ]
        page = named_page(request, shown)
        return ApiResponse(200, page, self._account_headers(params["project"], containers))

    def head_account(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        containers = self.cloud.list("containers")
        return ApiResponse(204, None, self._account_headers(params["project"], containers))

    def post_account(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        metadata = prefixed(request.headers, ACCOUNT_META)
        try:
            self.cloud.update("accounts", params["project"], {"metadata": metadata})
        except ItemNotFound:
            self.cloud.create("accounts", {"id": params["project"], "metadata": metadata})
        return ApiResponse(204)

    def _account_headers(self, project: str, containers: list[Body]) -> dict[str, str]:
        totals = [object_totals(body) for body in containers]
        headers = {
            "X-Account-Container-Count": str(len(containers)),
            "X-Account-Object-Count": str(sum(count for count, _ in totals)),
            "X-Account-Bytes-Used": str(sum(size for _, size in totals)),
        }
        account = self.cloud.list("accounts", ids=[project])
        for key, value in (account[0]["metadata"] if account else {}).items():
            headers[f"X-Account-Meta-{key}"] = value
        return headers

    # containers
    def put_container(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        fields = container_fields(request.headers)
        try:
            self.cloud.update("containers", params["container"], fields)
        except ItemNotFound:
            self.cloud.create("containers", {"name": params["container"], **fields})
            return ApiResponse(201)
        return ApiResponse(202)

    def head_container(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return ApiResponse(204, None, container_headers(self.cloud.get("containers", params["container"])))

    def list_objects(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        body = self.cloud.get("containers", params["container"])
        objects = [{"name": name, "bytes": size, "hash": "", "content_type": "application/octet-stream",
                    "last_modified": body["updated_at"]}
                   for name, size in sorted(body["objects"].items())]  # fmt: skip
        return ApiResponse(200, named_page(request, objects), container_headers(body))

    def post_container(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.update("containers", params["container"], container_fields(request.headers))
        return ApiResponse(204)

    def delete_container(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.delete("containers", params["container"])
        return ApiResponse(204)

    def delete_object(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.update("containers", params["container"], {"delete_object": params["object"]})
        return ApiResponse(204)


def container_fields(headers: Mapping[str, str]) -> dict[str, Any]:
    """The model's fields from a request's headers (ACLs only when sent, metadata always)."""
    fields: dict[str, Any] = {"metadata": prefixed(headers, CONTAINER_META)}
    for header, field in (("x-container-read", "read_acl"), ("x-container-write", "write_acl")):
        if header in headers:
            fields[field] = headers[header]
    for key in headers:
        if key.startswith("x-remove-container-meta-"):
            fields["metadata"][key.removeprefix("x-remove-container-meta-")] = ""
    return fields


def container_headers(body: Body) -> dict[str, str]:
    count, size = object_totals(body)
    headers = {"X-Container-Object-Count": str(count), "X-Container-Bytes-Used": str(size)}
    for header, field in (("X-Container-Read", "read_acl"), ("X-Container-Write", "write_acl")):
        if body.get(field):
            headers[header] = body[field]
    for key, value in body["metadata"].items():
        headers[f"X-Container-Meta-{key}"] = value
    return headers


def prefixed(headers: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {key.removeprefix(prefix): value for key, value in headers.items() if key.startswith(prefix)}


def named_page(request: ApiRequest, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One page of a name-ordered list: names after `marker`, at most `limit`, with `prefix`."""
    text = request.first("limit")
    try:
        limit = min(int(text), LIST_LIMIT) if text else LIST_LIMIT
    except ValueError as error:
        raise BadRequest(f"Invalid limit {text!r}") from error
    marker = request.first("marker") or ""
    prefix = request.first("prefix") or ""
    chosen = [item for item in items if item["name"] > marker and item["name"].startswith(prefix)]
    return chosen[:limit]
