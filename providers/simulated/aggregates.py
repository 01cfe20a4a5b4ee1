"""Nova's host aggregates: named groups of the cloud's compute hosts, with an availability zone and
metadata. Nova gives aggregates integer ids; the model keeps them as text and the HTTP face shows
numbers. A host unknown to the cloud is refused, as is a host already in the aggregate, and an
aggregate that still holds hosts cannot be deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

COMPUTE_HOSTS = ("compute-1", "compute-2", "compute-3")  # the hypervisors a fresh cloud has
AGGREGATE_UPDATABLE = frozenset({"name", "availability_zone"})


class Aggregates:
    collection = "aggregates"
    quota_status = 403
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 255:
            raise BadRequest("Invalid input for field/attribute name.")
        _require_unique(world, name)
        now = world.timestamp()
        number = 1 + max((int(body["id"]) for body in world.inventory(self.collection)), default=0)
        zone = request.get("availability_zone")
        return {
            "id": str(number),
            "uuid": world.new_id(),
            "name": name,
            "availability_zone": zone,
            "hosts": [],
            "metadata": {"availability_zone": zone} if zone else {},
            "created_at": now,
            "updated_at": None,
            "deleted": False,
            "deleted_at": None,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        unknown = sorted(set(request) - AGGREGATE_UPDATABLE)
        if unknown:
            raise BadRequest(f"Invalid input: cannot update {', '.join(unknown)} of an aggregate.")
        if request.get("name") not in (None, body["name"]):
            _require_unique(world, str(request["name"]))
        changed = {**body, **request, "updated_at": world.timestamp()}
        if "availability_zone" in request:
            zone = request["availability_zone"]
            metadata = {key: value for key, value in body["metadata"].items() if key != "availability_zone"}
            changed["metadata"] = {**metadata, **({"availability_zone": zone} if zone else {})}
        return changed

    def delete(self, world: CloudWorld, body: Body) -> None:
        if body["hosts"]:
            raise BadRequest(
                f"Cannot perform action 'delete' on aggregate {body['id']}. "
                "Reason: Host aggregate is not empty."
            )


def aggregate_action(world: CloudWorld, body: Body, action: str, request: Mapping[str, Any]) -> Body:
    """Nova's aggregate actions: add_host, remove_host, set_metadata (a null value removes a key)."""
    if action == "set_metadata":
        metadata = dict(body["metadata"])
        for key, value in (request.get("metadata") or {}).items():
            if value is None:
                metadata.pop(str(key), None)
            else:
                metadata[str(key)] = str(value)
        return {**body, "metadata": metadata, "updated_at": world.timestamp()}
    host = str(request.get("host"))
    if action == "add_host":
        if host not in COMPUTE_HOSTS:
            raise ItemNotFound(f"Compute host {host} could not be found.")
        if host in body["hosts"]:
            raise Conflict(f"Aggregate {body['id']} already has host {host}.")
        return {**body, "hosts": [*body["hosts"], host]}
    if action == "remove_host":
        if host not in body["hosts"]:
            raise ItemNotFound(f"Cannot remove host {host} in aggregate {body['id']}: not found.")
        return {**body, "hosts": [kept for kept in body["hosts"] if kept != host]}
    raise BadRequest(f"Unsupported aggregate action {action!r}.")


def _require_unique(world: CloudWorld, name: str) -> None:
    if world.inventory(Aggregates.collection).select(name=name):
        raise Conflict(f"Aggregate {name} already exists.")


BEHAVIOURS = (Aggregates(),)
AGGREGATE_ACTIONS = ("add_host", "remove_host", "set_metadata")
