"""OS::Swift::Container: a named container whose ACLs and metadata are headers.

The container's name is its physical id (Heat's default name for an unnamed one, which is what
`find_by_marker` looks for); the marker rides as the metadata entry `X-Container-Meta-Reconciler-Marker`.
A PUT on a container that exists changes it instead of failing, so a create repeated after a crash
adopts what the first one made. `PurgeOnDelete` is kept as a metadata entry too, since deletion is
handed only the name: a container that holds objects is emptied first when it asked for that, and
otherwise fails with the reason, as Heat's does.

Observation is the account's container list (one request per 10,000 containers, in name order),
which tells existence, object count and bytes, not ACLs or metadata: drift repair brings back a
container that is gone, and leaves changed headers to the next replacement.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent, Retryable
from providers.marker_text import TextLimit
from providers.openstack.json_api import JsonApi
from providers.openstack.marker_tags import physical_name

TYPE_NAME = "OS::Swift::Container"
CONTAINER_META = "X-Container-Meta-"
MARKER_KEY = "Reconciler-Marker"
PURGE_KEY = "Reconciler-Purge-On-Delete"
PROVIDER_KEYS = frozenset({MARKER_KEY.lower(), PURGE_KEY.lower()})
METADATA_VALUE = TextLimit(256)  # Swift keeps metadata values of up to 256 bytes
LIST_LIMIT = 10_000


@dataclass(frozen=True)
class SwiftContainerHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        name = properties.get("name") or physical_name(marker)
        self.api.with_headers("PUT", container_path(name), headers=create_headers(properties, marker))
        account_meta = properties.get("X-Account-Meta") or {}
        if account_meta:
            headers = {f"X-Account-Meta-{key}": str(value) for key, value in account_meta.items()}
            self.api.with_headers("POST", "/", headers=headers)
        return self.head(name)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{TYPE_NAME} has no property that changes in place ({sorted(changed)})")

    def delete(self, physical_id: str) -> None:
        path = container_path(physical_id)
        try:
            self.api.with_headers("DELETE", path)
        except Retryable as error:
            if not error.conflict:
                raise
            headers, _ = self.api.with_headers("HEAD", path)
            if user_metadata(headers, keep_provider_keys=True).get(PURGE_KEY.lower()) != "true":
                count = headers.get("X-Container-Object-Count", "some")
                raise Permanent(
                    f"container {physical_id} holds {count} objects and PurgeOnDelete is false: "
                    "empty it, or set PurgeOnDelete"
                ) from error
            self.purge(physical_id)
            self.api.with_headers("DELETE", path)

    def purge(self, name: str) -> None:
        """Delete every object of the container, one request each, as Swift requires."""
        for item in self.list_named(container_path(name)):
            try:
                self.api.with_headers("DELETE", f"{container_path(name)}/{quote(item['name'])}")
            except NotFound:
                continue

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {
            item["name"]: self.live(item["name"], int(item.get("count", 0)), int(item.get("bytes", 0)))
            for item in self.list_named("/")
            if item["name"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        """An unnamed container is called Heat's default name; it is ours when it carries the marker."""
        name = physical_name(marker)
        try:
            headers, _ = self.api.with_headers("HEAD", container_path(name))
        except NotFound:
            return None
        if user_metadata(headers, keep_provider_keys=True).get(MARKER_KEY.lower()) != marker_value(marker):
            return None
        return self.from_headers(name, headers, marker)

    def head(self, name: str) -> LiveResource:
        headers, _ = self.api.with_headers("HEAD", container_path(name))
        return self.from_headers(name, headers, None)

    def from_headers(self, name: str, headers: Mapping[str, str], marker: Marker | None) -> LiveResource:
        live = self.live(
            name,
            int(headers.get("X-Container-Object-Count") or 0),
            int(headers.get("X-Container-Bytes-Used") or 0),
            marker,
        )
        properties = {
            **live.properties,
            "X-Container-Read": headers.get("X-Container-Read"),
            "X-Container-Write": headers.get("X-Container-Write"),
            "X-Container-Meta": user_metadata(headers),
        }
        return LiveResource(live.physical_id, TYPE_NAME, live.status, properties, live.attributes, marker)

    def live(self, name: str, count: int, size: int, marker: Marker | None = None) -> LiveResource:
        account = self.api.proxy.get_endpoint().rstrip("/")
        where = urlsplit(account)
        head = {"X-Container-Object-Count": count, "X-Container-Bytes-Used": size}
        attributes = {
            "DomainName": where.hostname,
            "WebsiteURL": f"{account}/{quote(name)}",
            "RootURL": f"{account}/",
            "ObjectCount": count,
            "BytesUsed": size,
            "HeadContainer": head,
            "show": {"name": name, **head},
        }
        return LiveResource(name, TYPE_NAME, LiveStatus.READY, {"name": name}, attributes, marker)

    def list_named(self, path: str) -> list[dict[str, Any]]:
        """Every entry of a Swift list (containers of the account, objects of a container), paged."""
        found: list[dict[str, Any]] = []
        marker = ""
        while True:
            params: dict[str, str | int] = {"format": "json", "limit": LIST_LIMIT}
            if marker:
                params["marker"] = marker
            _, page = self.api.with_headers("GET", path, params=params)
            items: list[dict[str, Any]] = page or []
            found += items
            if len(items) < LIST_LIMIT:
                return found
            marker = items[-1]["name"]


def container_path(name: str) -> str:
    return f"/{quote(name, safe='')}"


def marker_value(marker: Marker) -> str:
    return METADATA_VALUE.fitted(marker.tag)


def create_headers(properties: Mapping[str, Any], marker: Marker) -> dict[str, str]:
    headers = {
        f"{CONTAINER_META}{key}": str(value)
        for key, value in (properties.get("X-Container-Meta") or {}).items()
    }
    for acl in ("X-Container-Read", "X-Container-Write"):
        if properties.get(acl):
            headers[acl] = str(properties[acl])
    headers[f"{CONTAINER_META}{MARKER_KEY}"] = marker_value(marker)
    if properties.get("PurgeOnDelete"):
        headers[f"{CONTAINER_META}{PURGE_KEY}"] = "true"
    return headers


def user_metadata(headers: Mapping[str, str], *, keep_provider_keys: bool = False) -> dict[str, str]:
    """The `X-Container-Meta-*` entries, keys lower-cased (Swift's case is not the template's)."""
    prefix = CONTAINER_META.lower()
    found = {
        key.lower().removeprefix(prefix): value
        for key, value in headers.items()
        if key.lower().startswith(prefix)
    }
    if keep_provider_keys:
        return found
    return {key: value for key, value in found.items() if key not in PROVIDER_KEYS}
