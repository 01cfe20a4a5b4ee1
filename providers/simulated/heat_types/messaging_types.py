"""OS::Zaqar::Queue on the simulated cloud, as the OpenStack provider speaks it over HTTP: the name
is the id (Heat's default name, in Zaqar's characters, for an unnamed queue), the marker a metadata
entry, and a create on a queue that exists adopts it."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker
from providers.marker_text import METADATA_VALUE
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import ItemNotFound
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body

MARKER_KEY = "reconciler_marker"
NAME_LIMIT = 64


def default_name(marker: Marker) -> str:
    suffix = f"-{marker.record_id[:12]}"
    text = re.sub(r"[^a-zA-Z0-9_-]", "-", f"{marker.stack}-{marker.resource}")
    return text[: NAME_LIMIT - len(suffix)] + suffix


class Queue:
    type_name: ClassVar[str] = "OS::Zaqar::Queue"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        name = properties.get("name") or default_name(marker)
        metadata = {**(properties.get("metadata") or {}), MARKER_KEY: METADATA_VALUE.fitted(marker.tag)}
        try:
            body = cloud.get("queues", name)
        except ItemNotFound:
            body = cloud.create("queues", {"name": name, "metadata": metadata})
        return self.live(body, marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = cloud.get("queues", physical_id)
        metadata = {**(properties.get("metadata") or {}), MARKER_KEY: current["metadata"].get(MARKER_KEY)}
        metadata = {key: value for key, value in metadata.items() if value is not None}
        return self.live(cloud.update("queues", physical_id, {"metadata": metadata}), None)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("queues", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        return {
            body["name"]: self.live(body, None) for body in cloud.list("queues") if body["name"] in wanted
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = cloud.list("queues", ids=[default_name(marker)])
        if found and found[0]["metadata"].get(MARKER_KEY) == METADATA_VALUE.fitted(marker.tag):
            return self.live(found[0], marker)
        return None

    def live(self, body: Body, marker: Marker | None) -> LiveResource:
        name = body["name"]
        user = {key: value for key, value in body["metadata"].items() if key != MARKER_KEY}
        attributes = {"queue_id": name, "href": f"http://simulated.invalid/messaging/v2/queues/{name}",
                      "show": {"name": name, "metadata": dict(body["metadata"])}}  # fmt: skip
        return LiveResource(
            name, self.type_name, LiveStatus.READY, {"name": name, "metadata": user}, attributes, marker
        )


TYPES = (Queue,)
