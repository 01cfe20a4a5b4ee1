"""Glance's images (image v2): made `queued`, then imported from a URL (web-download) through
`importing` to `active`, as Glance does; a seeded image is active from the start.

Properties Glance does not define (`os_distro`, `architecture`, anything else) are kept on the
image itself, as Glance keeps them; the read-only ones (id, status, size, checksum, owner's dates)
cannot be changed. A protected image cannot be deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, CloudError, Conflict
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

IMAGE_BUILDING = Building(building="importing", ready="active", error="killed")
DISK_FORMATS = frozenset({"ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2", "vdi", "iso", "ploop"})
CONTAINER_FORMATS = frozenset({"ami", "ari", "aki", "bare", "ovf", "ova", "docker", "compressed"})
READ_ONLY = frozenset(
    {"id", "status", "size", "virtual_size", "checksum", "os_hash_algo", "os_hash_value", "created_at",
     "updated_at", "file", "schema", "self", "direct_url", "locations"}
)  # fmt: skip
IMPORTED_SIZE = 21430272  # what a web-download brings in: the size of a small cloud image


class ImageForbidden(CloudError):
    status = 403
    code = "forbidden"


class Images:
    collection = "images"
    quota_status = 413
    building: Building | None = IMAGE_BUILDING
    builds_on_create = False  # an image builds when its data is imported, not when it is made

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        for key in ("disk_format", "container_format"):
            allowed = DISK_FORMATS if key == "disk_format" else CONTAINER_FORMATS
            if request.get(key) is not None and request[key] not in allowed:
                raise BadRequest(
                    f"Invalid value '{request[key]}' for {key}: must be one of {sorted(allowed)}."
                )
        image_id = request.get("id") or world.new_id()
        if image_id in world.inventory("images"):
            raise Conflict(f"Image with identifier {image_id} already exists!")
        now = world.timestamp()
        seeded = request.get("status") == "active"
        extra = {key: value for key, value in request.items() if key not in READ_ONLY}
        return {
            **extra,
            "id": image_id,
            "name": request.get("name"),
            "status": "active" if seeded else "queued",
            "visibility": request.get("visibility", "public" if seeded else "shared"),
            "disk_format": request.get("disk_format", "qcow2" if seeded else None),
            "container_format": request.get("container_format", "bare" if seeded else None),
            "size": IMPORTED_SIZE if seeded else None,
            "min_disk": request.get("min_disk", 0),
            "min_ram": request.get("min_ram", 0),
            "tags": list(request.get("tags") or ()),
            "protected": bool(request.get("protected", False)),
            "os_hidden": False,
            "owner": request.get("owner") or world.settings.project_id,
            "checksum": None,
            "created_at": now,
            "updated_at": now,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        """`request`: the values to set, and under `_removed` the names to remove (a JSON patch's)."""
        removed = set(request.get("_removed") or ())
        changed = {key: value for key, value in request.items() if key != "_removed"}
        for key in (*changed, *removed):
            if key in READ_ONLY:
                raise ImageForbidden(f"Attribute '{key}' is read-only.")
        kept = {key: value for key, value in body.items() if key not in removed}
        return {**kept, **changed, "updated_at": world.timestamp()}

    def delete(self, world: CloudWorld, body: Body) -> None:
        if body.get("protected"):
            raise ImageForbidden(f"Image {body['id']} is protected and cannot be deleted.")


def import_image(world: CloudWorld, image: Body, action: str, request: Mapping[str, Any]) -> Body:
    """Glance's image import: only `web-download` from a URL, only from `queued`."""
    method = request.get("method") or {}
    if method.get("name") != "web-download" or not method.get("uri"):
        raise BadRequest("Import method must be web-download with a uri.")
    if image["status"] != "queued":
        raise Conflict(f"Image status transition from {image['status']} to importing is not allowed")
    importing = {
        **image,
        "status": IMAGE_BUILDING.building,
        "size": IMPORTED_SIZE,
        "updated_at": world.timestamp(),
    }
    return world.start_building("images", importing)


BEHAVIOURS = (Images(),)
