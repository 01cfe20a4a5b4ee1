"""OS::Zaqar::Queue: a named queue whose marker rides in its metadata (`reconciler_marker`).

Zaqar is spoken to in JSON through the session of the SDK's messaging proxy, like the other
services, with the `Client-ID` header Zaqar requires on every request. The name
is the physical id; an unnamed queue is given Heat's default name, cut to Zaqar's 64 characters
of letters, digits, "_" and "-", which is what `find_by_marker` reads. A PUT on a queue that
exists changes nothing, so a create repeated after a crash adopts it; metadata changes are one
JSON patch. Observation is the detailed queue list, in name order, paged.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound
from providers.marker_text import METADATA_VALUE
from providers.openstack.json_api import JsonApi

TYPE_NAME = "OS::Zaqar::Queue"
MARKER_KEY = "reconciler_marker"
PATCH_TYPE = "application/openstack-messaging-v2.0-json-patch"
NAME_LIMIT = 64
PAGE = 20  # Zaqar's largest page of queues


def default_name(marker: Marker) -> str:
    """Heat's name for an unnamed queue (stack-resource-short id), in the characters Zaqar takes."""
    suffix = f"-{marker.record_id[:12]}"
    text = re.sub(r"[^a-zA-Z0-9_-]", "-", f"{marker.stack}-{marker.resource}")
    return text[: NAME_LIMIT - len(suffix)] + suffix


@dataclass(frozen=True)
class QueueHandler:
    api: JsonApi
    client: str = field(default_factory=lambda: str(uuid.uuid4()))  # who this provider is, to Zaqar

    def call(self, method: str, path: str, **options: Any) -> Any:
        headers = {"Client-ID": self.client, **options.pop("headers", {})}
        return self.api.with_headers(method, path, headers=headers, **options)[1]

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        name = properties.get("name") or default_name(marker)
        metadata = {**(properties.get("metadata") or {}), MARKER_KEY: METADATA_VALUE.fitted(marker.tag)}
        self.call("PUT", f"/queues/{name}", body=metadata)
        return self.live(name, self.call("GET", f"/queues/{name}") or {}, marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current: Mapping[str, Any] = self.call("GET", f"/queues/{physical_id}") or {}
        wanted = {**(properties.get("metadata") or {}), MARKER_KEY: current.get(MARKER_KEY)}
        operations: list[dict[str, Any]] = [
            {"op": "remove", "path": f"/metadata/{key}"} for key in current if key not in wanted
        ]
        operations += [
            {"op": "replace" if key in current else "add", "path": f"/metadata/{key}", "value": value}
            for key, value in wanted.items()
            if value is not None and current.get(key) != value
        ]
        if operations:
            current = self.call(
                "PATCH", f"/queues/{physical_id}", body=operations, headers={"Content-Type": PATCH_TYPE}
            )
        return self.live(physical_id, current, None)

    def delete(self, physical_id: str) -> None:
        self.call("GET", f"/queues/{physical_id}")  # Zaqar deletes a missing queue quietly: say it is gone
        self.call("DELETE", f"/queues/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        found: dict[str, LiveResource] = {}
        params: dict[str, str | int] = {"limit": PAGE, "detailed": "true"}
        while True:
            page = self.call("GET", "/queues", params=params) or {}
            queues = page.get("queues") or []
            for queue in queues:
                if queue["name"] in wanted:
                    found[queue["name"]] = self.live(queue["name"], queue.get("metadata") or {}, None)
            if len(queues) < PAGE or not any(link.get("rel") == "next" for link in page.get("links") or ()):
                return found
            params = {**params, "marker": queues[-1]["name"]}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        name = default_name(marker)
        try:
            metadata = self.call("GET", f"/queues/{name}") or {}
        except NotFound:
            return None
        return (
            self.live(name, metadata, marker)
            if metadata.get(MARKER_KEY) == METADATA_VALUE.fitted(marker.tag)
            else None
        )

    def live(self, name: str, metadata: Mapping[str, Any], marker: Marker | None) -> LiveResource:
        endpoint = self.api.proxy.get_endpoint().rstrip("/")
        user = {key: value for key, value in metadata.items() if key != MARKER_KEY}
        attributes = {
            "queue_id": name,
            "href": f"{endpoint}/queues/{name}",
            "show": {"name": name, "metadata": dict(metadata)},
        }
        return LiveResource(
            name, TYPE_NAME, LiveStatus.READY, {"name": name, "metadata": user}, attributes, marker
        )
