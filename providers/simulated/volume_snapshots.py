"""Cinder's volume snapshots (creating -> available): a source a new volume can be made from.

A snapshot keeps its volume's size; a volume made from it takes that size unless asked for more,
as Cinder does. Snapshots are made by the API (`POST /snapshots`), never by a template here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.block_storage import CINDER_QUOTA_STATUS
from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

SNAPSHOT_BUILDING = Building(building="creating", ready="available", error="error")
SNAPSHOT_UPDATABLE = frozenset({"name", "description", "metadata"})


class Snapshots:
    collection = "snapshots"
    quota_status = CINDER_QUOTA_STATUS
    building: Building | None = SNAPSHOT_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        volume_id = request.get("volume_id")
        if not isinstance(volume_id, str):
            raise BadRequest("Invalid input received: 'volume_id' is a required property.")
        volume = world.require("volumes", volume_id, "Volume")
        if volume["status"] == "in-use" and not request.get("force"):
            raise BadRequest("Invalid volume: Snapshotting an in-use volume must use the force flag.")
        now = world.timestamp()
        return {
            "id": world.new_id(),
            "name": request.get("name"),
            "description": request.get("description"),
            "volume_id": volume_id,
            "size": volume["size"],
            "status": SNAPSHOT_BUILDING.building,
            "metadata": dict(request.get("metadata") or {}),
            "created_at": now,
            "updated_at": now,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        unknown = sorted(set(request) - SNAPSHOT_UPDATABLE)
        if unknown:
            raise BadRequest(f"Invalid input received: cannot update {', '.join(unknown)}.")
        return {**body, **request, "updated_at": world.timestamp()}

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


BEHAVIOURS = (Snapshots(),)
