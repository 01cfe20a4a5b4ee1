"""Cinder's volumes (creating -> available, in-use when attached).

The idempotency marker of a volume is a metadata entry (Cinder volumes carry no tags); the
collection index covers metadata pairs, so a list filtered by metadata reads an index too.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from providers.simulated.errors import BadRequest, ItemNotFound, OverQuota
from providers.simulated.inventory import Body
from providers.simulated.volume_data import extend_image, make_image, remove_image, source_image
from providers.simulated.volume_types import DEFAULT_TYPE, volume_type_named
from providers.simulated.world import Building, CloudWorld

CINDER_QUOTA_STATUS = 413
VOLUME_BUILDING = Building(building="creating", ready="available", error="error")
DESCRIBED_UPDATABLE = frozenset({"name", "description", "metadata"})


class Volumes:
    collection = "volumes"
    quota_status = CINDER_QUOTA_STATUS
    building: Building | None = VOLUME_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        size = self._size(world, request)
        self._check_gigabytes(world, size)
        image = request.get("imageRef")
        if image and image not in world.inventory("images"):
            raise BadRequest(f"Invalid image identifier or unable to access requested image {image}.")
        volume_type = _volume_type(world, request.get("volume_type"))
        now = world.timestamp()
        volume_id = world.new_id()
        make_image(world, "volumes", volume_id, size, _source_image(world, request))
        return {
            "id": volume_id,
            "name": request.get("name"),
            "description": request.get("description"),
            "size": size,
            "status": VOLUME_BUILDING.building,
            "volume_type": volume_type["name"] if volume_type else DEFAULT_TYPE,
            "availability_zone": request.get("availability_zone") or "nova",
            "metadata": dict(request.get("metadata") or {}),
            "bootable": "true" if image else "false",
            "encrypted": bool(volume_type and volume_type["encryption"]),
            "multiattach": bool(request.get("multiattach", False)),
            "attachments": [],
            "snapshot_id": request.get("snapshot_id"),
            "source_volid": request.get("source_volid"),
            "backup_id": request.get("backup_id"),
            "consistencygroup_id": None,
            "replication_status": None,
            "os-vol-tenant-attr:tenant_id": world.settings.project_id,
            "user_id": world.settings.user_id,
            "created_at": now,
            "updated_at": now,
            "volume_image_metadata": {"image_id": image} if image else {},
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        return update_described(world, body, request)

    def delete(self, world: CloudWorld, body: Body) -> None:
        if body["attachments"] or body["status"] not in ("available", "error", "error_restoring"):
            raise BadRequest(
                f"Invalid volume: Volume status must be available or error or error_restoring or "
                f"error_extending or error_managing and must not be migrating, attached, belong to a "
                f"group, have snapshots or be disassociated from snapshots after volume transfer. "
                f"(volume {body['id']} is {body['status']})"
            )
        remove_image(world, "volumes", body["id"])

    @staticmethod
    def _size(world: CloudWorld, request: Mapping[str, Any]) -> int:
        """The size asked for; a volume made from a snapshot, a backup or another volume takes its
        source's size when none is given, and may not be smaller."""
        size = request.get("size")
        source = _source_of(world, request)
        if source is not None:
            kind, body = source
            if size is None:
                return int(body["size"])
            if isinstance(size, int) and size < body["size"]:
                raise BadRequest(
                    f"Invalid input received: Volume size '{size}'GB cannot be smaller than the {kind} "
                    f"size {body['size']}GB. They must be >= original {kind} size."
                )
        if not isinstance(size, int) or size < 1:
            raise BadRequest(f"Invalid input received: 'size' must be a positive integer, got {size!r}.")
        return size

    @staticmethod
    def _check_gigabytes(world: CloudWorld, size: int) -> None:
        limit = world.settings.quotas.get("gigabytes")
        if limit is None:
            return
        used = sum(volume["size"] for volume in world.inventory("volumes"))
        if used + size > limit:
            raise OverQuota(
                f"VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds allowed gigabytes "
                f"quota. Requested {size}G, quota is {limit}G and {used}G has been consumed.",
                CINDER_QUOTA_STATUS,
            )


def _volume_type(world: CloudWorld, wanted: Any) -> Body | None:
    """The type a volume request names (by name or id), None for the default; 404 when unknown."""
    if not wanted:
        return volume_type_named(world, DEFAULT_TYPE)
    found = volume_type_named(world, str(wanted))
    if found is None:
        raise ItemNotFound(f"Volume type with name {wanted} could not be found.")
    return found


def _source_image(world: CloudWorld, request: Mapping[str, Any]) -> Path | None:
    """The image a new volume starts as a copy of: its snapshot's, backup's or volume's."""
    sources = (("snapshot_id", "snapshots"), ("backup_id", "backups"), ("source_volid", "volumes"))
    for key, collection in sources:
        if request.get(key):
            return source_image(world, collection, str(request[key]))
    return None


def _source_of(world: CloudWorld, request: Mapping[str, Any]) -> tuple[str, Body] | None:
    """What a new volume is made from (snapshot, backup or volume), if anything."""
    for key, collection, kind in (
        ("snapshot_id", "snapshots", "snapshot"),
        ("backup_id", "backups", "backup"),
        ("source_volid", "volumes", "source volume"),
    ):
        if request.get(key):
            body = world.require(collection, str(request[key]), kind.capitalize())
            return kind, body
    return None


def volume_action(world: CloudWorld, volume: Body, action: str, request: Mapping[str, Any]) -> Body:
    """Cinder's volume actions: extend (grow only), retype to a type the cloud holds, set bootable,
    read-only flag."""
    if action == "os-extend":
        new_size = request.get("new_size")
        if not isinstance(new_size, int) or new_size <= volume["size"]:
            raise BadRequest(
                f"Invalid input received: New size for extend must be greater than current size. "
                f"(current: {volume['size']}, extended: {new_size})."
            )
        Volumes._check_gigabytes(world, new_size - volume["size"])
        extend_image(world, volume["id"], new_size)
        return {**volume, "size": new_size}
    if action == "os-retype":
        if not request.get("new_type"):
            raise BadRequest("Invalid input received: new_type is required for os-retype.")
        new_type = _volume_type(world, request["new_type"])
        return {**volume, "volume_type": new_type["name"] if new_type else DEFAULT_TYPE}
    if action == "os-set_bootable":
        return {**volume, "bootable": "true" if request.get("bootable") else "false"}
    if action == "os-update_readonly_flag":
        return {**volume, "metadata": {**volume["metadata"], "readonly": str(bool(request.get("readonly")))}}
    raise BadRequest(f"Unsupported volume action {action!r}.")


BEHAVIOURS = (Volumes(),)


def update_described(world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
    """A Cinder update of what describes a volume, snapshot or backup: anything else is refused."""
    unknown = sorted(set(request) - DESCRIBED_UPDATABLE)
    if unknown:
        raise BadRequest(f"Invalid input received: cannot update {', '.join(unknown)}.")
    return {**body, **request, "updated_at": world.timestamp()}


def source_volume(world: CloudWorld, request: Mapping[str, Any], *, action: str) -> Body:
    """The volume a snapshot or backup is made of; an attached one only with `force`, as Cinder asks."""
    volume_id = request.get("volume_id")
    if not isinstance(volume_id, str):
        raise BadRequest("Invalid input received: 'volume_id' is a required property.")
    volume = world.require("volumes", volume_id, "Volume")
    if volume["status"] == "in-use" and not request.get("force"):
        raise BadRequest(f"Invalid volume: {action} an in-use volume must use the force flag.")
    return volume
