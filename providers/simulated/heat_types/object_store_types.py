"""OS::Swift::Container on the simulated cloud, as the OpenStack provider speaks it over HTTP.

The container's name is its id; the marker and `PurgeOnDelete` ride as metadata entries (the
collection indexes metadata, so a container is found by its marker). A create on a name that
exists changes that container, as Swift's PUT does, so a repeated create adopts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar
from urllib.parse import quote

from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.marker_text import TextLimit, bounded_name
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict, ItemNotFound
from providers.simulated.heat_types.adapter import pages, shown
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body
from providers.simulated.object_storage import object_totals

MARKER_KEY = "reconciler-marker"
PURGE_KEY = "reconciler-purge-on-delete"
METADATA_VALUE = TextLimit(256)


class Container:
    type_name: ClassVar[str] = "OS::Swift::Container"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        name = properties.get("name") or default_name(marker)
        metadata = {str(key): str(value) for key, value in (properties.get("X-Container-Meta") or {}).items()}
        metadata[MARKER_KEY] = METADATA_VALUE.fitted(marker.tag)
        if properties.get("PurgeOnDelete"):
            metadata[PURGE_KEY] = "true"
        fields: Body = {"metadata": metadata}
        for acl, field in (("X-Container-Read", "read_acl"), ("X-Container-Write", "write_acl")):
            if properties.get(acl):
                fields[field] = properties[acl]
        try:
            body = cloud.update("containers", name, fields)
        except ItemNotFound:
            body = cloud.create("containers", {"name": name, **fields})
        account_meta = properties.get("X-Account-Meta") or {}
        if account_meta:
            self._set_account_metadata(cloud, {str(key): str(value) for key, value in account_meta.items()})
        return self.live(cloud, body, marker)

    def _set_account_metadata(self, cloud: SimulatedCloud, metadata: Mapping[str, str]) -> None:
        project = cloud.settings.project_id
        try:
            cloud.update("accounts", project, {"metadata": metadata})
        except ItemNotFound:
            cloud.create("accounts", {"id": project, "metadata": metadata})

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{self.type_name} has no property that changes in place ({sorted(changed)})")

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        try:
            cloud.delete("containers", physical_id)
        except Conflict as error:
            body = cloud.get("containers", physical_id)
            if body["metadata"].get(PURGE_KEY) != "true":
                raise Permanent(
                    f"container {physical_id} holds {len(body['objects'])} objects and PurgeOnDelete is "
                    "false: empty it, or set PurgeOnDelete"
                ) from error
            for name in body["objects"]:
                cloud.update("containers", physical_id, {"delete_object": name})
            cloud.delete("containers", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        found: dict[str, LiveResource] = {}
        for page in pages(physical_ids):
            for body in cloud.list("containers", ids=page):
                found[body["name"]] = self.live(cloud, body, None, headers_known=False)
        return found

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        bodies = cloud.list("containers", tags=[f"{MARKER_KEY}={METADATA_VALUE.fitted(marker.tag)}"])
        return self.live(cloud, bodies[0], marker) if bodies else None

    def live(
        self, cloud: SimulatedCloud, body: Body, marker: Marker | None, *, headers_known: bool = True
    ) -> LiveResource:
        """As the HTTP provider sees it: a listed container shows its name and counts only."""
        count, size = object_totals(body)
        name = body["name"]
        properties: dict[str, Any] = {"name": name}
        if headers_known:
            properties["X-Container-Read"] = body.get("read_acl")
            properties["X-Container-Write"] = body.get("write_acl")
            properties["X-Container-Meta"] = {
                key: value for key, value in body["metadata"].items() if key not in (MARKER_KEY, PURGE_KEY)
            }
        account = f"http://simulated.invalid/object-store/v1/AUTH_{cloud.settings.project_id}"
        head = {"X-Container-Object-Count": count, "X-Container-Bytes-Used": size}
        attributes = {
            "DomainName": "simulated.invalid",
            "WebsiteURL": f"{account}/{quote(name)}",
            "RootURL": f"{account}/",
            "ObjectCount": count,
            "BytesUsed": size,
            "HeadContainer": head,
            "show": shown(body),
        }
        return LiveResource(name, self.type_name, LiveStatus.READY, properties, attributes, marker)


def default_name(marker: Marker) -> str:
    """Heat's name for an unnamed resource (stack-resource-short id), as the OpenStack provider makes it."""
    return bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id[:12]}")


TYPES = (Container,)
