"""OS::Designate::Zone and RecordSet (and the v1 names Domain and Record) on the simulated cloud,
as the OpenStack provider speaks them over HTTP: the marker is the description when the template
gives none, a record set's physical id is `<zone id>:<record set id>`, and a create meeting a zone
or record set that carries its marker adopts it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.marker_text import TextLimit
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict
from providers.simulated.heat_types.adapter import shown
from providers.simulated.heat_types.resolving import NameResolver, looks_like_id
from providers.simulated.inventory import Body

DESCRIPTION = TextLimit(160)
STATUSES = {"ACTIVE": LiveStatus.READY, "PENDING": LiveStatus.IN_PROGRESS, "ERROR": LiveStatus.FAILED}


def described(request: Body, marker: Marker) -> Body:
    return {**request, "description": request.get("description") or DESCRIPTION.fitted(marker.tag)}


class Zone:
    type_name: ClassVar[str] = "OS::Designate::Zone"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = {
            key: properties[key]
            for key in ("name", "email", "ttl", "description", "type")
            if properties.get(key) is not None
        }
        if properties.get("primaries"):
            request["masters"] = list(properties["primaries"])
        request = described(request, marker)
        try:
            return self.live(cloud.create("zones", request), marker)
        except Conflict as error:
            found = [zone for zone in cloud.list("zones") if zone["name"] == request["name"]]
            if not found or found[0]["description"] != request["description"]:
                raise Permanent(
                    f"a zone named {request['name']!r} already exists and is not this resource's"
                ) from error
            return self.live(found[0], marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        request: Body = {key: properties.get(key) for key in changed & {"email", "ttl", "description"}}
        if "primaries" in changed:
            request["masters"] = list(properties.get("primaries") or ())
        body = cloud.update("zones", physical_id, request) if request else cloud.get("zones", physical_id)
        return self.live(body)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("zones", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        return (
            {zone["id"]: self.live(zone) for zone in cloud.list("zones") if zone["id"] in wanted}
            if wanted
            else {}
        )

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        text = DESCRIPTION.fitted(marker.tag)
        found = [zone for zone in cloud.list("zones", where={"description": text})]
        return self.live(found[0], marker) if found else None

    def live(self, zone: Body, marker: Marker | None = None) -> LiveResource:
        properties = {key: zone.get(key) for key in ("name", "email", "ttl", "description", "type")}
        if self.type_name == "OS::Designate::Zone":
            properties["primaries"] = zone.get("masters") or []
        else:
            properties.pop("type")
        status = STATUSES.get(str(zone.get("status")), LiveStatus.IN_PROGRESS)
        attributes = {"serial": zone.get("serial"), "show": shown(zone)}
        return LiveResource(zone["id"], self.type_name, status, properties, attributes, marker)


class Domain(Zone):
    type_name: ClassVar[str] = "OS::Designate::Domain"


class RecordSet:
    type_name: ClassVar[str] = "OS::Designate::RecordSet"
    zone_property: ClassVar[str] = "zone"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def records(self, properties: Mapping[str, Any]) -> list[str]:
        return [str(record) for record in properties.get("records") or ()]

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        zone_id = self.zone_id(cloud, str(properties[self.zone_property]))
        request = {
            key: properties[key]
            for key in ("name", "type", "ttl", "description")
            if properties.get(key) is not None
        }
        request = described({**request, "records": self.records(properties), "zone_id": zone_id}, marker)
        try:
            return self.live(cloud.create("recordsets", request), marker)
        except Conflict as error:
            same = cloud.list("recordsets", where={"zone_id": zone_id, "type": request["type"]})
            found = [
                item
                for item in same
                if item["name"] == request.get("name") and item["description"] == request["description"]
            ]
            if not found:
                raise Permanent(
                    f"a {request['type']} record set named {request.get('name')!r} already exists and is "
                    "not this resource's"
                ) from error
            return self.live(found[0], marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        request: Body = {key: properties.get(key) for key in changed & {"ttl", "description"}}
        if changed & {"records", "data", "priority"}:
            request["records"] = self.records(properties)
        recordset_id = physical_id.partition(":")[2]
        body = (
            cloud.update("recordsets", recordset_id, request)
            if request
            else cloud.get("recordsets", recordset_id)
        )
        return self.live(body)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("recordsets", physical_id.partition(":")[2])

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        found = (self.live(item) for item in cloud.list("recordsets")) if wanted else iter(())
        return {live.physical_id: live for live in found if live.physical_id in wanted}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = cloud.list("recordsets", where={"description": DESCRIPTION.fitted(marker.tag)})
        return self.live(found[0], marker) if found else None

    def zone_id(self, cloud: SimulatedCloud, zone: str) -> str:
        if looks_like_id(zone):
            return zone
        for zone_body in cloud.list("zones"):
            if zone_body["name"] in (zone, f"{zone}."):
                return str(zone_body["id"])
        raise Permanent(f"the zone {zone!r} could not be found")

    def live(self, recordset: Body, marker: Marker | None = None) -> LiveResource:
        properties: dict[str, Any] = {
            key: recordset.get(key) for key in ("name", "type", "ttl", "description")
        }
        if self.zone_property == "zone":
            properties["records"] = list(recordset.get("records") or ())
        status = STATUSES.get(str(recordset.get("status")), LiveStatus.IN_PROGRESS)
        physical_id = f"{recordset['zone_id']}:{recordset['id']}"
        return LiveResource(
            physical_id, self.type_name, status, properties, {"show": shown(recordset)}, marker
        )


class Record(RecordSet):
    """The v1 record: one `data`, with `priority` in front of it for MX and SRV, as v2 writes it."""

    type_name: ClassVar[str] = "OS::Designate::Record"
    zone_property: ClassVar[str] = "domain"

    def records(self, properties: Mapping[str, Any]) -> list[str]:
        priority, data = properties.get("priority"), str(properties["data"])
        return [
            f"{priority} {data}" if priority is not None and properties.get("type") in ("MX", "SRV") else data
        ]


TYPES = (Zone, Domain, RecordSet, Record)
