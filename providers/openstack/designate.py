"""OS::Designate::Zone and RecordSet, and the v1 names Domain and Record, over Designate's v2 API.

Designate keeps no tags: the marker is the description when the template gives none (Designate
keeps 160 characters of it), so `find_by_marker` is one list filtered by description. A create that
meets a zone or record set of the same name (409) adopts it when it carries the marker, and fails
with the reason otherwise. Every change is asynchronous (PENDING, then ACTIVE), which the engine
waits for. A record set's physical id is `<zone id>:<record set id>`, since every record set call is
made under its zone. Observation is one paged list of every zone, or every record set.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from providers.interface import LiveResource, LiveStatus, Marker, Permanent, Retryable
from providers.marker_text import TextLimit
from providers.openstack.json_api import PAGE_SIZE, JsonApi

DESCRIPTION = TextLimit(160)
STATUSES = {"ACTIVE": LiveStatus.READY, "PENDING": LiveStatus.IN_PROGRESS, "ERROR": LiveStatus.FAILED}
ZONE_KEYS = ("name", "email", "ttl", "description", "type")
RECORDSET_KEYS = ("name", "type", "ttl", "description", "records")


def marker_description(marker: Marker) -> str:
    return DESCRIPTION.fitted(marker.tag)


def listed(
    api: JsonApi, path: str, key: str, params: Mapping[str, str] | None = None
) -> Iterator[dict[str, Any]]:
    """Every item of a Designate list, following `links.next` (one request per page)."""
    query: dict[str, Any] = {"limit": PAGE_SIZE, **(params or {})}
    while True:
        page = api.get(path, query)
        items: list[dict[str, Any]] = page.get(key) or []
        yield from items
        following = (page.get("links") or {}).get("next")
        markers = parse_qs(urlsplit(following).query).get("marker") if following else None
        if not markers or not items:
            return
        query["marker"] = markers[-1]


@dataclass(frozen=True)
class ZoneHandler:
    api: JsonApi
    type_name: str  # OS::Designate::Zone, or the v1 name OS::Designate::Domain

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = {key: properties[key] for key in ZONE_KEYS if properties.get(key) is not None}
        body.setdefault("description", marker_description(marker))
        if properties.get("primaries"):
            body["masters"] = list(properties["primaries"])
        try:
            return self.live(self.api.post("/zones", body), marker)
        except Retryable as error:
            if not error.conflict:
                raise
            existing = next(iter(listed(self.api, "/zones", "zones", {"name": str(body["name"])})), None)
            if existing is None or existing.get("description") != body["description"]:
                raise Permanent(
                    f"a zone named {body['name']!r} already exists and is not this resource's"
                ) from error
            return self.live(existing, marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        body: dict[str, Any] = {key: properties.get(key) for key in changed & {"email", "ttl", "description"}}
        if "primaries" in changed:
            body["masters"] = list(properties.get("primaries") or ())
        path = f"/zones/{physical_id}"
        return self.live(self.api.patch(path, body, "application/json") if body else self.api.get(path))

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/zones/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {
            zone["id"]: self.live(zone)
            for zone in listed(self.api, "/zones", "zones")
            if zone["id"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        found = next(
            iter(listed(self.api, "/zones", "zones", {"description": marker_description(marker)})), None
        )
        return None if found is None else self.live(found, marker)

    def live(self, zone: Mapping[str, Any], marker: Marker | None = None) -> LiveResource:
        properties = {key: zone.get(key) for key in ZONE_KEYS}
        if self.type_name == "OS::Designate::Zone":
            properties["primaries"] = zone.get("masters") or []
        else:
            properties.pop("type")
        return LiveResource(
            physical_id=zone["id"],
            type=self.type_name,
            status=STATUSES.get(str(zone.get("status")), LiveStatus.IN_PROGRESS),
            properties=properties,
            attributes={"serial": zone.get("serial"), "show": dict(zone)},
            marker=marker,
            status_reason=f"zone {zone.get('name')} is in ERROR" if zone.get("status") == "ERROR" else "",
        )


@dataclass(frozen=True)
class RecordSetHandler:
    api: JsonApi
    type_name: str  # OS::Designate::RecordSet, or the v1 name OS::Designate::Record

    @property
    def v1(self) -> bool:
        return self.type_name == "OS::Designate::Record"

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        zone_id = self.zone_id(properties["domain" if self.v1 else "zone"])
        body = {
            key: properties[key]
            for key in ("name", "type", "ttl", "description")
            if properties.get(key) is not None
        }
        body["records"] = self.records(properties)
        body.setdefault("description", marker_description(marker))
        path = f"/zones/{zone_id}/recordsets"
        try:
            return self.live(self.api.post(path, body), marker)
        except Retryable as error:
            if not error.conflict:
                raise
            same = {"type": str(body["type"]), **({"name": str(body["name"])} if "name" in body else {})}
            existing = next(iter(listed(self.api, path, "recordsets", same)), None)
            if existing is None or existing.get("description") != body["description"]:
                raise Permanent(
                    f"a {body['type']} record set named {body.get('name')!r} already exists and is not "
                    "this resource's"
                ) from error
            return self.live(existing, marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        body: dict[str, Any] = {key: properties.get(key) for key in changed & {"ttl", "description"}}
        if changed & {"records", "data", "priority"}:
            body["records"] = self.records(properties)
        path = self.path(physical_id)
        return self.live(self.api.put(path, body) if body else self.api.get(path))

    def delete(self, physical_id: str) -> None:
        self.api.delete(self.path(physical_id))

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        found = (self.live(item) for item in listed(self.api, "/recordsets", "recordsets"))
        return {live.physical_id: live for live in found if live.physical_id in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        query = {"description": marker_description(marker)}
        found = next(iter(listed(self.api, "/recordsets", "recordsets", query)), None)
        return None if found is None else self.live(found, marker)

    def records(self, properties: Mapping[str, Any]) -> list[str]:
        """The v2 records: a v1 Record's one `data`, its `priority` in front for MX and SRV."""
        if not self.v1:
            return [str(record) for record in properties.get("records") or ()]
        priority = properties.get("priority")
        data = str(properties["data"])
        return [
            f"{priority} {data}" if priority is not None and properties.get("type") in ("MX", "SRV") else data
        ]

    def zone_id(self, zone: str) -> str:
        if looks_like_id(zone):
            return zone
        for name in (zone, zone if zone.endswith(".") else zone + "."):
            found = next(iter(listed(self.api, "/zones", "zones", {"name": name})), None)
            if found is not None:
                return str(found["id"])
        raise Permanent(f"the zone {zone!r} could not be found")

    @staticmethod
    def path(physical_id: str) -> str:
        zone_id, _, recordset_id = physical_id.partition(":")
        return f"/zones/{zone_id}/recordsets/{recordset_id}"

    def live(self, recordset: Mapping[str, Any], marker: Marker | None = None) -> LiveResource:
        properties: dict[str, Any] = {
            key: recordset.get(key) for key in ("name", "type", "ttl", "description")
        }
        if not self.v1:
            properties["records"] = list(recordset.get("records") or ())
        return LiveResource(
            physical_id=f"{recordset['zone_id']}:{recordset['id']}",
            type=self.type_name,
            status=STATUSES.get(str(recordset.get("status")), LiveStatus.IN_PROGRESS),
            properties=properties,
            attributes={"show": dict(recordset)},
            marker=marker,
            status_reason="the record set is in ERROR" if recordset.get("status") == "ERROR" else "",
        )


def looks_like_id(value: str) -> bool:
    text = value.replace("-", "")
    return len(text) == 32 and all(char in "0123456789abcdef" for char in text.lower())
