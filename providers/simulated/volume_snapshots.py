"""Cinder's volume snapshots (creating -> available): a source a new volume can be made from.

A snapshot keeps its volume's size; a volume made from it takes that size unless asked for more,
as Cinder does. Snapshots are made by the API (`POST /snapshots`), never by a template here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.block_storage import CINDER_QUOTA_STATUS, source_volume, update_described
from providers.simulated.inventory import Body
from providers.simulated.volume_data import make_image, remove_image, source_image
from providers.simulated.world import Building, CloudWorld

SNAPSHOT_BUILDING = Building(building="creating", ready="available", error="error")


class Snapshots:
    collection = "snapshots"
    quota_status = CINDER_QUOTA_STATUS
    building: Building | None = SNAPSHOT_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        volume = source_volume(world, request, action="Snapshotting")
        now = world.timestamp()
        item_id = world.new_id()
        make_image(world, "snapshots", item_id, volume["size"], source_image(world, "volumes", volume["id"]))
        return {
            "id": item_id,
            "name": request.get("name"),
            "description": request.get("description"),
            "volume_id": volume["id"],
            "size": volume["size"],
            "status": SNAPSHOT_BUILDING.building,
            "metadata": dict(request.get("metadata") or {}),
            "created_at": now,
            "updated_at": now,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        return update_described(world, body, request)

    def delete(self, world: CloudWorld, body: Body) -> None:
        remove_image(world, "snapshots", body["id"])


BEHAVIOURS = (Snapshots(),)
