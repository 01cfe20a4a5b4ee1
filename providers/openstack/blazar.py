"""OS::Blazar::Host and OS::Blazar::Lease: Blazar's reservable hosts and leases, in JSON.

Blazar keeps no tags or metadata on either, so neither carries a marker. A host is named by its
hypervisor, which can be enrolled once: a create that meets it enrolled adopts it (it is the same
host). A lease's name is unique in the project: a create that meets a lease of the same name and
the same dates adopts it (a repeat after a crash), any other is a permanent conflict. Every
property replaces either resource, as in Heat. A lease is READY from the moment Blazar holds it,
PENDING until its start, then ACTIVE, then TERMINATED (still what the template made, so not drift);
ERROR is FAILED. Before a lease, as Heat's validation does, Blazar must hold at least one host.
Observation is one list call per type (Blazar does not page).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, Permanent, Retryable
from providers.openstack.json_api import JsonApi

HOST_TYPE = "OS::Blazar::Host"
LEASE_TYPE = "OS::Blazar::Lease"
HOST_FIELDS = ("hypervisor_hostname", "hypervisor_type", "hypervisor_version", "vcpus", "cpu_info",
               "memory_mb", "local_gb", "service_name", "reservable", "status", "trust_id",
               "created_at", "updated_at")  # fmt: skip
LEASE_FIELDS = ("name", "start_date", "end_date", "created_at", "updated_at", "status", "degraded",
                "user_id", "project_id", "trust_id", "reservations", "events")  # fmt: skip
# Reservation keys Heat leaves out for the other resource type (its schema gives them defaults).
NOT_FOR = {
    "physical:host": ("vcpus", "memory_mb", "disk_gb", "affinity", "amount"),
    "virtual:instance": ("hypervisor_properties", "max", "min", "before_end"),
}
FAILED_LEASE = ("ERROR",)


def reservation_body(reservation: Mapping[str, Any]) -> dict[str, Any]:
    dropped = NOT_FOR.get(str(reservation.get("resource_type")), ())
    return {key: value for key, value in reservation.items() if key not in dropped and value is not None}


def same_minute(blazar_date: Any, template_date: Any) -> bool:
    """Blazar shows `2030-01-01T10:00:00.000000` for the `2030-01-01 10:00` it was given."""
    return str(blazar_date)[:16].replace("T", " ") == str(template_date)[:16]


@dataclass(frozen=True)
class HostHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = {**(properties.get("extra_capability") or {}), "name": properties["name"]}
        try:
            return self.live(self.api.post("/os-hosts", body)["host"])
        except Retryable as error:
            if not error.conflict:
                raise
            enrolled = [h for h in self._hosts() if h.get("hypervisor_hostname") == properties["name"]]
            if not enrolled:
                raise
            return self.live(enrolled[0])

    def update(self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]) -> LiveResource:
        return self.live(self.api.get(f"/os-hosts/{physical_id}")["host"])  # every property replaces

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/os-hosts/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        return {str(h["id"]): self.live(h) for h in self._hosts() if str(h["id"]) in wanted} if wanted else {}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # hosts carry no marker; a repeated create adopts the enrolled host instead

    def _hosts(self) -> list[dict[str, Any]]:
        return list(self.api.get("/os-hosts").get("hosts") or [])

    @staticmethod
    def live(host: Mapping[str, Any]) -> LiveResource:
        capabilities = {key: value for key, value in host.items() if key not in (*HOST_FIELDS, "id", "name")}
        attributes = {key: host.get(key) for key in HOST_FIELDS}
        attributes["extra_capability"] = capabilities
        reported = {"name": host.get("hypervisor_hostname"), "extra_capability": capabilities}
        return LiveResource(str(host["id"]), HOST_TYPE, LiveStatus.READY, reported, attributes)


@dataclass(frozen=True)
class LeaseHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        if not self.api.get("/os-hosts").get("hosts"):
            raise Permanent("Couldn't find any host in Blazar. You must create a host before creating a lease.")
        body: dict[str, Any] = {
            "name": properties["name"],
            "start_date": properties["start_date"],
            "end_date": properties["end_date"],
            "reservations": [reservation_body(entry) for entry in properties.get("reservations") or ()],
            "events": list(properties.get("events") or ()),
        }
        if properties.get("before_end_date"):
            body["before_end_date"] = properties["before_end_date"]
        try:
            return self.live(self.api.post("/leases", body)["lease"], marker)
        except Retryable as error:
            if not error.conflict:
                raise
            return self._adopted(properties, marker, error)

    def update(self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]) -> LiveResource:
        return self.live(self.api.get(f"/leases/{physical_id}")["lease"], None)  # every property replaces

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/leases/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        leases = self.api.get("/leases").get("leases") or []
        return {lease["id"]: self.live(lease, None) for lease in leases if lease["id"] in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # leases carry no marker; a repeated create adopts the lease of its name and dates

    def _adopted(self, properties: Mapping[str, Any], marker: Marker, error: Retryable) -> LiveResource:
        named = [lease for lease in self.api.get("/leases").get("leases") or () if lease["name"] == properties["name"]]
        if named and all(
            same_minute(named[0].get(key), properties[key]) for key in ("start_date", "end_date")
        ):
            return self.live(named[0], marker)
        raise Permanent(f"a lease named {properties['name']!r} already exists with other dates") from error

    @staticmethod
    def live(lease: Mapping[str, Any], marker: Marker | None) -> LiveResource:
        status = str(lease.get("status"))
        attributes = {key: lease.get(key) for key in LEASE_FIELDS}
        reported = {"name": lease.get("name")}
        failed = status in FAILED_LEASE
        return LiveResource(
            str(lease["id"]), LEASE_TYPE, LiveStatus.FAILED if failed else LiveStatus.READY, reported,
            attributes, marker, status_reason=f"the lease is {status}" if failed else "",
        )  # fmt: skip
