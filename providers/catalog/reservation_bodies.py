"""How Heat's Blazar properties become Blazar's request bodies, and how a host or lease Blazar
shows reads back: one answer for every backend that serves OS::Blazar::Host and OS::Blazar::Lease.

A host is enrolled by its hypervisor name with its extra capabilities flat beside it. A lease's
reservations drop the keys Heat's schema gives the other resource type (a host reservation keeps
no `amount`). A lease is READY from the moment Blazar holds it: PENDING until its start, ACTIVE,
then TERMINATED (still what the template made, so not drift); ERROR is FAILED.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker

HOST_TYPE = "OS::Blazar::Host"
LEASE_TYPE = "OS::Blazar::Lease"
HOST_FIELDS = ("hypervisor_hostname", "hypervisor_type", "hypervisor_version", "vcpus", "cpu_info",
               "memory_mb", "local_gb", "service_name", "reservable", "status", "trust_id",
               "created_at", "updated_at")  # fmt: skip
LEASE_FIELDS = ("name", "start_date", "end_date", "created_at", "updated_at", "status", "degraded",
                "user_id", "project_id", "trust_id", "reservations", "events")  # fmt: skip
NOT_FOR = {
    "physical:host": ("vcpus", "memory_mb", "disk_gb", "affinity", "amount"),
    "virtual:instance": ("hypervisor_properties", "max", "min", "before_end"),
}
NO_HOST = "Couldn't find any host in Blazar. You must create a host before creating a lease."


def host_body(properties: Mapping[str, Any]) -> dict[str, Any]:
    return {**(properties.get("extra_capability") or {}), "name": properties["name"]}


def reservation_body(reservation: Mapping[str, Any]) -> dict[str, Any]:
    dropped = NOT_FOR.get(str(reservation.get("resource_type")), ())
    return {key: value for key, value in reservation.items() if key not in dropped and value is not None}


def lease_body(properties: Mapping[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": properties["name"],
        "start_date": properties["start_date"],
        "end_date": properties["end_date"],
        "reservations": [reservation_body(entry) for entry in properties.get("reservations") or ()],
        "events": list(properties.get("events") or ()),
    }
    if properties.get("before_end_date"):
        body["before_end_date"] = properties["before_end_date"]
    return body


def same_lease(lease: Mapping[str, Any], properties: Mapping[str, Any]) -> bool:
    """Whether `lease` is the one these properties made: its name and dates (Blazar shows
    `2030-01-01T10:00:00.000000` for the `2030-01-01 10:00` it was given)."""
    return lease.get("name") == properties["name"] and all(
        str(lease.get(key))[:16].replace("T", " ") == str(properties[key])[:16]
        for key in ("start_date", "end_date")
    )


def host_live(host: Mapping[str, Any]) -> LiveResource:
    capabilities = {key: value for key, value in host.items() if key not in (*HOST_FIELDS, "id", "name")}
    attributes: dict[str, Any] = {key: host.get(key) for key in HOST_FIELDS}
    attributes["extra_capability"] = capabilities
    reported = {"name": host.get("hypervisor_hostname"), "extra_capability": capabilities}
    return LiveResource(str(host["id"]), HOST_TYPE, LiveStatus.READY, reported, attributes)


def lease_live(lease: Mapping[str, Any], marker: Marker | None) -> LiveResource:
    status = str(lease.get("status"))
    failed = status == "ERROR"
    return LiveResource(
        str(lease["id"]),
        LEASE_TYPE,
        LiveStatus.FAILED if failed else LiveStatus.READY,
        {"name": lease.get("name")},
        {key: lease.get(key) for key in LEASE_FIELDS},
        marker,
        status_reason=f"the lease is {status}" if failed else "",
    )
