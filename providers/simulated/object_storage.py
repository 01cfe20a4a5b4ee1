"""Swift's containers (object-store v1): named, not numbered; their metadata and ACLs are headers.

A container's id is its name, as in Swift. Metadata (`X-Container-Meta-*`) is kept lower-cased, as
Swift answers it, in `metadata`, which the collection indexes, so a container is found by its
marker entry. Objects are bookkeeping only (a name and a size each, no content): enough for the
counts Swift reports and for a container that refuses deletion while it holds any. The account's
own metadata (`X-Account-Meta-*`) lives in the `accounts` collection, one body per project.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

SWIFT_QUOTA_STATUS = 413
CONTAINER_NAME_LIMIT = 256
METADATA_VALUE_LIMIT = 256


class Containers:
    collection = "containers"
    quota_status = SWIFT_QUOTA_STATUS
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not name or "/" in name or len(name.encode()) > CONTAINER_NAME_LIMIT:
            raise BadRequest(
                f"Container name length of {len(str(name))} longer than {CONTAINER_NAME_LIMIT} or holding '/'"
            )
        now = world.timestamp()
        return {
            "id": name,
            "name": name,
            "read_acl": request.get("read_acl"),
            "write_acl": request.get("write_acl"),
            "metadata": checked_metadata(request.get("metadata") or {}),
            "objects": {},
            "created_at": now,
            "updated_at": now,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        """A PUT or POST on an existing container: ACLs replaced when given, metadata merged (an
        empty value removes an entry, as Swift does); or one object put or deleted."""
        if "put_object" in request:
            name, size = request["put_object"]
            return {**body, "objects": {**body["objects"], str(name): int(size)}}
        if "delete_object" in request:
            name = str(request["delete_object"])
            if name not in body["objects"]:
                raise ItemNotFound(f"Object {name} could not be found.")
            return {**body, "objects": {key: value for key, value in body["objects"].items() if key != name}}
        changed = {key: request[key] for key in ("read_acl", "write_acl") if key in request}
        metadata = {**body["metadata"], **checked_metadata(request.get("metadata") or {})}
        metadata = {key: value for key, value in metadata.items() if value != ""}
        return {**body, **changed, "metadata": metadata, "updated_at": world.timestamp()}

    def delete(self, world: CloudWorld, body: Body) -> None:
        if body["objects"]:
            raise Conflict("There was a conflict when trying to complete your request.")


class Accounts:
    collection = "accounts"
    quota_status = SWIFT_QUOTA_STATUS
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        return {"id": str(request["id"]), "metadata": checked_metadata(request.get("metadata") or {})}

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        metadata = {**body["metadata"], **checked_metadata(request.get("metadata") or {})}
        return {**body, "metadata": {key: value for key, value in metadata.items() if value != ""}}

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


def checked_metadata(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Metadata as Swift keeps it: keys lower-cased, values text of at most 256 bytes."""
    kept = {}
    for key, value in metadata.items():
        text = "" if value is None else str(value)
        if len(text.encode()) > METADATA_VALUE_LIMIT:
            raise BadRequest(f"Metadata value longer than {METADATA_VALUE_LIMIT}: {str(key)[:40]}")
        kept[str(key).lower()] = text
    return kept


def object_totals(body: Body) -> tuple[int, int]:
    """How many objects a container holds, and their bytes."""
    objects: Mapping[str, int] = body.get("objects") or {}
    return len(objects), sum(objects.values())


BEHAVIOURS = (Containers(), Accounts())
