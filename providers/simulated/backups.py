"""Cinder's volume backups (creating -> available): what Heat's `Snapshot` deletion policy makes
of a volume before deleting it.

A backup keeps the size and id of its volume after the volume is gone, as Cinder's do; an in-use
volume is backed up only with `force`, and a backup is deleted only when it is not being made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.block_storage import CINDER_QUOTA_STATUS, source_volume, update_described
from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body
from providers.simulated.volume_data import make_image, remove_image, source_image
from providers.simulated.world import Building, CloudWorld

BACKUP_BUILDING = Building(building="creating", ready="available", error="error")
VOLUME_BACKUP_STATES = frozenset({"available", "in-use"})


class Backups:
    collection = "backups"
    quota_status = CINDER_QUOTA_STATUS
    building: Building | None = BACKUP_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        volume = source_volume(world, request, action="Backing up")
        if volume["status"] not in VOLUME_BACKUP_STATES:
            raise BadRequest(
                f"Invalid volume: Volume to be backed up must be available or in-use, but the current "
                f'status is "{volume["status"]}".'
            )
        now = world.timestamp()
        item_id = world.new_id()
        make_image(world, "backups", item_id, volume["size"], source_image(world, "volumes", volume["id"]))
        return {
            "id": item_id,
            "name": request.get("name"),
            "description": request.get("description"),
            "volume_id": volume["id"],
            "size": volume["size"],
            "status": BACKUP_BUILDING.building,
            "availability_zone": volume.get("availability_zone"),
            "container": request.get("container") or "volumebackups",
            "metadata": dict(request.get("metadata") or {}),
            "is_incremental": bool(request.get("incremental", False)),
            "has_dependent_backups": False,
            "snapshot_id": request.get("snapshot_id"),
            "object_count": 0,
            "fail_reason": None,
            "os-backup-project-attr:project_id": world.settings.project_id,
            "user_id": world.settings.user_id,
            "created_at": now,
            "updated_at": now,
            "data_timestamp": now,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        return update_described(world, body, request)

    def delete(self, world: CloudWorld, body: Body) -> None:
        if body["status"] not in ("available", "error"):
            raise BadRequest(
                f"Invalid backup: Backup status must be available or error (backup {body['id']} is "
                f"{body['status']})."
            )
        remove_image(world, "backups", body["id"])


BEHAVIOURS = (Backups(),)
