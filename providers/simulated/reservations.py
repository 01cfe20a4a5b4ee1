"""Blazar's hosts and leases (reservation v1).

A host is a Nova hypervisor enrolled for reservation, named by its hypervisor hostname (one the
cloud does not have is a 404, as Blazar's lookup in Nova answers); its extra capabilities are the
request's other keys. A lease holds reservations (`physical:host` with min/max and properties,
`virtual:instance` with amount, vcpus, memory and disk); it is PENDING until its start date and
ACTIVE until its end date, then TERMINATED, derived from the cloud's clock on every read (`shown`).
Limits: reservations are recorded, not checked against the capacity of enrolled hosts, and no
flavor or aggregate is made for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from providers.simulated.aggregates import COMPUTE_HOSTS
from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

DATE_FORMAT = "%Y-%m-%d %H:%M"
RESOURCE_TYPES = ("physical:host", "virtual:instance", "virtual:floatingip")
HOST_FIELDS = ("name",)


def parsed_date(text: Any, field: str, now: datetime) -> datetime:
    if text == "now":
        return now.replace(second=0, microsecond=0)
    try:
        return datetime.strptime(str(text), DATE_FORMAT).replace(tzinfo=UTC)
    except ValueError as error:
        raise BadRequest(f"Invalid date format for {field}: {text!r}; expected YYYY-MM-DD HH:MM.") from error


class Hosts:
    collection = "reservable_hosts"
    quota_status = 403
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if name not in COMPUTE_HOSTS:
            raise ItemNotFound(f"Host '{name}' not found in Nova's hypervisors.")
        if world.inventory(self.collection).select(name=str(name)):
            raise Conflict(f"Host {name} is already enrolled.")
        capabilities = {key: value for key, value in request.items() if key not in HOST_FIELDS}
        return {
            "id": str(1 + max((int(host["id"]) for host in world.inventory(self.collection)), default=0)),
            "name": name,
            "hypervisor_hostname": name,
            "hypervisor_type": "QEMU",
            "hypervisor_version": 8002000,
            "vcpus": 8,
            "cpu_info": '{"arch": "x86_64", "model": "Haswell", "vendor": "Intel", "topology": '
            '{"cells": 1, "sockets": 1, "cores": 4, "threads": 2}}',
            "memory_mb": 16384,
            "local_gb": 160,
            "service_name": name,
            "reservable": True,
            "status": None,
            "trust_id": world.new_id().replace("-", ""),
            "extra_capability": capabilities,
            "created_at": world.timestamp(),
            "updated_at": None,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        capabilities = {key: value for key, value in request.items() if key not in HOST_FIELDS}
        return {**body, "extra_capability": {**body["extra_capability"], **capabilities}}

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


def checked_reservation(world: CloudWorld, lease_id: str, request: Any) -> Body:
    if not isinstance(request, Mapping) or request.get("resource_type") not in RESOURCE_TYPES:
        raise BadRequest(f"Invalid reservation: resource_type must be one of {', '.join(RESOURCE_TYPES)}.")
    kind = request["resource_type"]
    if kind == "physical:host":
        low, high = request.get("min"), request.get("max")
        if not isinstance(low, int) or not isinstance(high, int) or not 0 < low <= high:
            raise BadRequest("Invalid values for min/max of hosts: min and max must be 0 < min <= max.")
    elif kind == "virtual:instance":
        for key in ("amount", "vcpus", "memory_mb", "disk_gb"):
            if not isinstance(request.get(key), int) or request[key] < (1 if key != "disk_gb" else 0):
                raise BadRequest(f"Invalid value for {key} of an instance reservation: {request.get(key)!r}.")
    stamp = world.timestamp()
    return {**request, "id": world.new_id(), "lease_id": lease_id, "status": "pending",
            "created_at": stamp, "updated_at": None}  # fmt: skip


class Leases:
    collection = "leases"
    quota_status = 403
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest("A lease needs a name.")
        if world.inventory(self.collection).select(name=name):
            raise Conflict(f"The lease with name: {name} already exists")
        now = datetime.fromtimestamp(world.now, UTC)
        start = parsed_date(request.get("start_date"), "start_date", now)
        end = parsed_date(request.get("end_date"), "end_date", now)
        if start < now.replace(second=0, microsecond=0):
            raise BadRequest(f"Start date must be later than current date: {start:%Y-%m-%d %H:%M}")
        if end <= start:
            raise BadRequest("End date must be later than start date.")
        reservations = request.get("reservations")
        if not isinstance(reservations, list) or not reservations:
            raise BadRequest("A lease needs at least one reservation.")
        lease_id = world.new_id()
        return {
            "id": lease_id,
            "name": name,
            "start_date": start.strftime("%Y-%m-%dT%H:%M:%S.000000"),
            "end_date": end.strftime("%Y-%m-%dT%H:%M:%S.000000"),
            "before_end_date": request.get("before_end_date"),
            "status": "PENDING",
            "degraded": False,
            "user_id": world.settings.user_id,
            "project_id": world.settings.project_id,
            "trust_id": world.new_id().replace("-", ""),
            "reservations": [checked_reservation(world, lease_id, entry) for entry in reservations],
            "events": [
                {
                    "event_type": kind,
                    "time": when.strftime("%Y-%m-%dT%H:%M:%S.000000"),
                    "status": "UNDONE",
                    "lease_id": lease_id,
                }
                for kind, when in (("start_lease", start), ("end_lease", end))
            ]
            + list(request.get("events") or ()),
            "created_at": world.timestamp(),
            "updated_at": None,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        changed = {key: request[key] for key in ("name",) if key in request}
        return {**body, **changed, "updated_at": world.timestamp()}

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


def host_shown(body: Body) -> Body:
    """A host as Blazar shows it: its extra capabilities as fields of its own."""
    fields = {key: value for key, value in body.items() if key != "extra_capability"}
    return {**body["extra_capability"], **fields}


def shown(body: Body, now: float) -> Body:
    """A lease as Blazar shows it at `now`: its status and its reservations' follow its dates."""
    moment = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%S.000000")
    if moment >= body["end_date"]:
        status, reservation_status = "TERMINATED", "deleted"
    elif moment >= body["start_date"]:
        status, reservation_status = "ACTIVE", "active"
    else:
        status, reservation_status = "PENDING", "pending"
    reservations = [{**entry, "status": reservation_status} for entry in body["reservations"]]
    return {**body, "status": status, "reservations": reservations}


BEHAVIOURS = (Hosts(), Leases())
