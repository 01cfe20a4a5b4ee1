"""Designate's zones and record sets (DNS v2): every change is asynchronous, PENDING then ACTIVE.

A zone's name is a fully qualified domain name (it ends with "."), unique in the cloud; a primary
zone needs an email. A record set's name lies within its zone's and is unique with its type there;
its records are kept as given. A change to a zone or one of its record sets raises the zone's
serial, as Designate does. Deleting a zone deletes its record sets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

DNS_QUOTA_STATUS = 413
DNS_BUILDING = Building(building="PENDING", ready="ACTIVE", error="ERROR")
ZONE_UPDATABLE = frozenset({"email", "ttl", "description", "masters"})
RECORDSET_UPDATABLE = frozenset({"records", "ttl", "description"})
DESCRIPTION_LIMIT = 160
RECORD_TYPES = frozenset({"A", "AAAA", "CNAME", "MX", "SRV", "TXT", "SPF", "NS", "PTR", "SSHFP", "SOA", "CAA",
                          "CERT", "NAPTR"})  # fmt: skip


def checked_description(request: Mapping[str, Any]) -> None:
    description = request.get("description")
    if isinstance(description, str) and len(description) > DESCRIPTION_LIMIT:
        raise BadRequest(f"'{description[:40]}...' is too long: description is at most {DESCRIPTION_LIMIT}.")


class Zones:
    collection = "zones"
    quota_status = DNS_QUOTA_STATUS
    building: Building | None = DNS_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not name.endswith(".") or len(name) > 255:
            raise BadRequest(f"Invalid zone name {name!r}: a zone name is a FQDN ending with '.'.")
        kind = request.get("type", "PRIMARY")
        if kind == "PRIMARY" and not request.get("email"):
            raise BadRequest("'email' is a required property of a PRIMARY zone.")
        if kind == "SECONDARY" and not request.get("masters"):
            raise BadRequest("'masters' is a required property of a SECONDARY zone.")
        checked_description(request)
        if any(zone["name"] == name for zone in world.inventory("zones")):
            raise Conflict("Duplicate Zone")
        now = world.timestamp()
        return {
            "id": world.new_id(),
            "name": name,
            "email": request.get("email"),
            "ttl": int(request.get("ttl") or 3600),
            "description": request.get("description"),
            "type": kind,
            "masters": list(request.get("masters") or ()),
            "serial": int(world.now),
            "status": DNS_BUILDING.building,
            "action": "CREATE",
            "version": 1,
            "pool_id": "794ccc2c-d751-44fe-b57f-8894c9f5c842",
            "project_id": world.settings.project_id,
            "created_at": now,
            "updated_at": None,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        unknown = sorted(set(request) - ZONE_UPDATABLE)
        if unknown:
            raise BadRequest(f"Invalid input: {', '.join(unknown)} cannot be changed.")
        checked_description(request)
        changed = {**body, **request, "action": "UPDATE", "version": body["version"] + 1}
        return world.start_building("zones", {**changed, **raised_serial(world, body)})

    def delete(self, world: CloudWorld, body: Body) -> None:
        for recordset in list(world.inventory("recordsets")):
            if recordset["zone_id"] == body["id"]:
                world.inventory("recordsets").pop(recordset["id"])


class RecordSets:
    collection = "recordsets"
    quota_status = DNS_QUOTA_STATUS
    building: Building | None = DNS_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        zone = world.require("zones", str(request.get("zone_id")), "Zone")
        name = request.get("name") or zone["name"]
        kind = request.get("type")
        if kind not in RECORD_TYPES:
            raise BadRequest(f"Invalid record set type {kind!r}.")
        if not isinstance(name, str) or not (name == zone["name"] or name.endswith("." + zone["name"])):
            raise BadRequest(
                f"RecordSet {name!r} is not within zone {zone['name']}: give a FQDN in the zone."
            )
        records = request.get("records")
        if not isinstance(records, list) or not records:
            raise BadRequest("'records' is a required property: a list of at least one record.")
        checked_description(request)
        for other in world.inventory("recordsets"):
            if other["zone_id"] == zone["id"] and other["name"] == name and other["type"] == kind:
                raise Conflict("Duplicate RecordSet")
        world.add("zones", {**zone, **raised_serial(world, zone)})
        now = world.timestamp()
        return {
            "id": world.new_id(),
            "zone_id": zone["id"],
            "zone_name": zone["name"],
            "name": name,
            "type": kind,
            "records": [str(record) for record in records],
            "ttl": request.get("ttl"),
            "description": request.get("description"),
            "status": DNS_BUILDING.building,
            "action": "CREATE",
            "version": 1,
            "project_id": world.settings.project_id,
            "created_at": now,
            "updated_at": None,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        unknown = sorted(set(request) - RECORDSET_UPDATABLE)
        if unknown:
            raise BadRequest(f"Invalid input: {', '.join(unknown)} cannot be changed.")
        checked_description(request)
        zone = world.require("zones", body["zone_id"], "Zone")
        world.add("zones", {**zone, **raised_serial(world, zone)})
        changed = {**body, **request, "action": "UPDATE", "version": body["version"] + 1}
        return world.start_building("recordsets", changed)

    def delete(self, world: CloudWorld, body: Body) -> None:
        zone = world.inventory("zones").get(body["zone_id"])
        if zone is not None:
            world.add("zones", {**zone, **raised_serial(world, zone)})


def raised_serial(world: CloudWorld, zone: Body) -> Body:
    return {"serial": max(int(zone["serial"]) + 1, int(world.now)), "updated_at": world.timestamp()}


BEHAVIOURS = (Zones(), RecordSets())
