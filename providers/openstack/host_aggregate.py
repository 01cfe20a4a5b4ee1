"""OS::Nova::HostAggregate: Nova's host aggregates (an admin API).

| Heat property | Nova call |
|---|---|
| name, availability_zone | `POST /os-aggregates`, `PUT /os-aggregates/{id}` |
| metadata (+ the marker entry) | `POST /os-aggregates/{id}/action` set_metadata (null removes a key) |
| hosts | `POST /os-aggregates/{id}/action` add_host / remove_host, one host a call |

Aggregates carry no tags: the marker is a metadata entry, which the scheduler's aggregate filters
match only against flavor extra specs and image properties that name it. Delete empties the
aggregate first, as Heat does: Nova refuses to delete one that still holds hosts. A name already
taken is a permanent failure naming the aggregate, not a conflict to wait out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, Permanent, Retryable
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import MARKER_METADATA_KEY, marker_metadata_value

TYPE_NAME = "OS::Nova::HostAggregate"
PATH = "/os-aggregates"
ZONE_KEY = "availability_zone"  # Nova mirrors the zone into the metadata


@dataclass(frozen=True)
class HostAggregateHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        found = self.find_by_marker(marker)
        if found is not None:
            return found
        request = {"name": properties.get("name"), "availability_zone": properties.get("availability_zone")}
        try:
            created = self.apis.compute.post(PATH, {"aggregate": request})["aggregate"]
        except Retryable as error:
            if error.conflict:
                raise Permanent(
                    f"host aggregate {properties.get('name')!r} cannot be created: {error}"
                ) from None
            raise
        aggregate_id = str(created["id"])
        metadata = {**_metadata(properties), MARKER_METADATA_KEY: marker_metadata_value(marker)}
        body = self._act(aggregate_id, "set_metadata", {"metadata": metadata})
        for host in properties.get("hosts") or ():
            body = self._act(aggregate_id, "add_host", {"host": host})
        return live_aggregate(body)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        fields = {name: properties.get(name) for name in changed & {"name", "availability_zone"}}
        if fields:
            self.apis.compute.put(f"{PATH}/{physical_id}", {"aggregate": fields})
        body = self.apis.compute.get(f"{PATH}/{physical_id}")["aggregate"]
        if "metadata" in changed:
            wanted = _metadata(properties)
            kept = (MARKER_METADATA_KEY, ZONE_KEY)
            dropped = {
                key: None for key in body.get("metadata") or {} if key not in wanted and key not in kept
            }
            body = self._act(physical_id, "set_metadata", {"metadata": {**dropped, **wanted}})
        if "hosts" in changed:
            current = list(body.get("hosts") or ())
            wanted_hosts = [str(host) for host in properties.get("hosts") or ()]
            for host in [host for host in current if host not in wanted_hosts]:
                body = self._act(physical_id, "remove_host", {"host": host})
            for host in [host for host in wanted_hosts if host not in current]:
                body = self._act(physical_id, "add_host", {"host": host})
        return live_aggregate(body)

    def delete(self, physical_id: str) -> None:
        for host in self.apis.compute.get(f"{PATH}/{physical_id}")["aggregate"].get("hosts") or ():
            self._act(physical_id, "remove_host", {"host": host})
        self.apis.compute.delete(f"{PATH}/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        listed = self.apis.compute.get(PATH)["aggregates"]
        return {str(body["id"]): live_aggregate(body) for body in listed if str(body["id"]) in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        value = marker_metadata_value(marker)
        for body in self.apis.compute.get(PATH)["aggregates"]:
            if (body.get("metadata") or {}).get(MARKER_METADATA_KEY) == value:
                return live_aggregate(body)
        return None

    def _act(self, physical_id: str, action: str, argument: Mapping[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self.apis.compute.post(
            f"{PATH}/{physical_id}/action", {action: dict(argument)}
        )
        return dict(answer["aggregate"])


def live_aggregate(body: Mapping[str, Any]) -> LiveResource:
    metadata = dict(body.get("metadata") or {})
    marker = Marker.parse(metadata.pop(MARKER_METADATA_KEY, ""))
    metadata.pop(ZONE_KEY, None)
    properties = {
        "name": body.get("name"),
        "availability_zone": body.get("availability_zone"),
        "hosts": list(body.get("hosts") or ()),
        "metadata": metadata,
    }
    return LiveResource(
        str(body["id"]), TYPE_NAME, LiveStatus.READY, properties, {"show": dict(body)}, marker
    )


def _metadata(properties: Mapping[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in (properties.get("metadata") or {}).items()}
