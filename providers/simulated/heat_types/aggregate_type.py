"""OS::Nova::HostAggregate on the simulated cloud. Aggregates carry no tags; the marker is a
metadata entry, which the scheduler's aggregate filters match only against flavor extra specs
and image properties that name it, so it never steers a server.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.marker_text import METADATA_VALUE
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict
from providers.simulated.heat_types.adapter import pages, shown
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body

COLLECTION = "aggregates"
MARKER_KEY = "reconciler_marker"
ZONE_KEY = "availability_zone"  # Nova mirrors the zone into the metadata


class HostAggregate:
    type_name: ClassVar[str] = "OS::Nova::HostAggregate"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = {"name": properties.get("name"), "availability_zone": properties.get("availability_zone")}
        try:
            body = cloud.create(COLLECTION, request)
        except Conflict as error:
            raise Permanent(
                f"host aggregate {properties.get('name')!r} cannot be created: {error.message}"
            ) from None
        metadata = {**_metadata(properties), MARKER_KEY: METADATA_VALUE.fitted(marker.tag)}
        cloud.act(COLLECTION, body["id"], "set_metadata", {"metadata": metadata})
        for host in properties.get("hosts") or ():
            cloud.act(COLLECTION, body["id"], "add_host", {"host": host})
        return self.live(cloud.get(COLLECTION, body["id"]))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        fields = {name: properties.get(name) for name in changed & {"name", "availability_zone"}}
        if fields:
            cloud.update(COLLECTION, physical_id, fields)
        current = cloud.get(COLLECTION, physical_id)
        if "metadata" in changed:
            wanted = _metadata(properties)
            dropped = {
                key: None
                for key in current["metadata"]
                if key not in wanted and key not in (MARKER_KEY, ZONE_KEY)
            }
            cloud.act(COLLECTION, physical_id, "set_metadata", {"metadata": {**dropped, **wanted}})
        if "hosts" in changed:
            wanted_hosts = [str(host) for host in properties.get("hosts") or ()]
            for host in [host for host in current["hosts"] if host not in wanted_hosts]:
                cloud.act(COLLECTION, physical_id, "remove_host", {"host": host})
            for host in [host for host in wanted_hosts if host not in current["hosts"]]:
                cloud.act(COLLECTION, physical_id, "add_host", {"host": host})
        return self.live(cloud.get(COLLECTION, physical_id))

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        """Heat empties the aggregate first: Nova refuses to delete one that holds hosts."""
        for host in cloud.get(COLLECTION, physical_id)["hosts"]:
            cloud.act(COLLECTION, physical_id, "remove_host", {"host": host})
        cloud.delete(COLLECTION, physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        return {
            body["id"]: self.live(body)
            for page in pages(physical_ids)
            for body in cloud.list(COLLECTION, ids=page)
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        fitted = METADATA_VALUE.fitted(marker.tag)
        found = [body for body in cloud.list(COLLECTION) if body["metadata"].get(MARKER_KEY) == fitted]
        return self.live(found[0]) if found else None

    def live(self, body: Body) -> LiveResource:
        metadata = {
            key: value for key, value in body["metadata"].items() if key not in (MARKER_KEY, ZONE_KEY)
        }
        properties = {
            "name": body["name"],
            "availability_zone": body.get("availability_zone"),
            "hosts": list(body["hosts"]),
            "metadata": metadata,
        }
        return LiveResource(
            body["id"],
            self.type_name,
            LiveStatus.READY,
            properties,
            {"show": shown(body)},
            Marker.parse(body["metadata"].get(MARKER_KEY, "")),
        )


def _metadata(properties: Mapping[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in (properties.get("metadata") or {}).items()}


TYPES = (HostAggregate,)
