"""Cinder's volume types: names unique in the cloud, extra specs, project access for private types,
and the encryption spec a type may carry.

A type in use by a volume cannot be deleted, nor can its encryption be changed or removed, as
Cinder refuses both. A volume names its type by name or id and is encrypted when its type is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

DEFAULT_TYPE = "lvmdriver-1"
DEFAULT_TYPE_ID = "5f1c6a2e-7f0b-4c8e-9d61-3a1b2c3d4e5f"
TYPE_UPDATABLE = frozenset({"name", "description", "is_public"})
ENCRYPTION_FIELDS = frozenset({"provider", "cipher", "key_size", "control_location"})
CONTROL_LOCATIONS = ("front-end", "back-end")
PUBLIC_KEY = "os-volume-type-access:is_public"
PROJECTS = "_projects"  # the projects a private type is shared with, shown only through its access list


class VolumeTypes:
    collection = "volume_types"
    quota_status = 413
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not name.strip():
            raise BadRequest("Invalid input received: Volume type name can not be empty.")
        if world.inventory(self.collection).select(name=name):
            raise Conflict(f"Volume Type {name} already exists.")
        public = request.get(PUBLIC_KEY, request.get("is_public", True))
        return {
            "id": request.get("id") or world.new_id(),
            "name": name,
            "description": request.get("description"),
            "is_public": _boolean(public),
            "extra_specs": {
                str(key): str(value) for key, value in (request.get("extra_specs") or {}).items()
            },
            "qos_specs_id": None,
            "encryption": None,
            PROJECTS: [],
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        unknown = sorted(set(request) - TYPE_UPDATABLE)
        if unknown:
            raise BadRequest(f"Invalid input received: cannot update {', '.join(unknown)} of a volume type.")
        name = request.get("name")
        if name is not None and name != body["name"] and world.inventory(self.collection).select(name=name):
            raise Conflict(f"Volume Type {name} already exists.")
        changed = {**body, **{key: value for key, value in request.items() if value is not None}}
        if "is_public" in request:
            changed["is_public"] = _boolean(request["is_public"])
        return changed

    def delete(self, world: CloudWorld, body: Body) -> None:
        if _in_use(world, body):
            raise BadRequest(f"Target volume type is still in use. (volume type {body['id']})")


def volume_type_action(world: CloudWorld, body: Body, action: str, request: Mapping[str, Any]) -> Body:
    """Extra specs, project access and the encryption spec of one volume type."""
    if action == "set_extra_specs":
        specs = {str(key): str(value) for key, value in (request.get("extra_specs") or {}).items()}
        return {**body, "extra_specs": {**body["extra_specs"], **specs}}
    if action == "delete_extra_spec":
        key = str(request.get("key"))
        if key not in body["extra_specs"]:
            raise ItemNotFound(f"Volume Type {body['id']} has no extra specs with key {key}.")
        return {**body, "extra_specs": {k: v for k, v in body["extra_specs"].items() if k != key}}
    if action in ("addProjectAccess", "removeProjectAccess"):
        return _access_changed(body, action, str(request.get("project")))
    return _encryption_changed(world, body, action, request)


def _access_changed(body: Body, action: str, project: str) -> Body:
    if body["is_public"]:
        raise BadRequest(
            "Invalid volume type: Type access modification is not applicable to public volume type."
        )
    projects = list(body[PROJECTS])
    if action == "addProjectAccess":
        if project in projects:
            raise Conflict(f"Volume type access for {body['id']}/{project} combination already exists.")
        return {**body, PROJECTS: [*projects, project]}
    if project not in projects:
        raise ItemNotFound(f"Volume type access not found for {body['id']}/{project} combination.")
    return {**body, PROJECTS: [kept for kept in projects if kept != project]}


def _encryption_changed(world: CloudWorld, body: Body, action: str, request: Mapping[str, Any]) -> Body:
    current = body["encryption"]
    if action == "create_encryption":
        if current is not None:
            raise BadRequest(f"Volume type encryption for type {body['id']} already exists.")
        spec = _encryption_spec(request)
        if not spec.get("provider"):
            raise BadRequest("Invalid input received: provider must be given for volume type encryption.")
        return {**body, "encryption": {"encryption_id": world.new_id(), "volume_type_id": body["id"], **spec}}
    if current is None:
        raise ItemNotFound(f"Volume type encryption for type {body['id']} does not exist.")
    if _in_use(world, body):
        raise BadRequest("Cannot update encryption specs. Volume type in use.")
    if action == "update_encryption":
        return {**body, "encryption": {**current, **_encryption_spec(request)}}
    if action == "delete_encryption":
        return {**body, "encryption": None}
    raise BadRequest(f"Unsupported volume type action {action!r}.")


def _encryption_spec(request: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(request) - ENCRYPTION_FIELDS)
    if unknown:
        raise BadRequest(f"Invalid input received: unknown encryption fields {', '.join(unknown)}.")
    location = request.get("control_location")
    if location is not None and location not in CONTROL_LOCATIONS:
        raise BadRequest(
            f"Invalid input received: control_location must be one of {', '.join(CONTROL_LOCATIONS)}."
        )
    key_size = request.get("key_size")
    if key_size is not None and (not isinstance(key_size, int) or key_size <= 0):
        raise BadRequest(f"Invalid input received: key_size must be a positive integer, got {key_size!r}.")
    return {key: value for key, value in request.items() if value is not None}


def volume_type_named(world: CloudWorld, wanted: str) -> Body | None:
    """The type a volume request names, by id or by name."""
    inventory = world.inventory(VolumeTypes.collection)
    found = inventory.get(wanted)
    if found is not None:
        return found
    named = inventory.select(name=wanted)
    return named[0] if named else None


def _in_use(world: CloudWorld, body: Body) -> bool:
    return any(volume["volume_type"] == body["name"] for volume in world.inventory("volumes"))


def _boolean(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("true", "1", "yes")


def seed_default_type(world: CloudWorld) -> None:
    """The type a volume gets when its request names none."""
    world.add(
        VolumeTypes.collection, VolumeTypes().create(world, {"id": DEFAULT_TYPE_ID, "name": DEFAULT_TYPE})
    )


BEHAVIOURS = (VolumeTypes(),)
VOLUME_TYPE_ACTIONS = (
    "set_extra_specs",
    "delete_extra_spec",
    "addProjectAccess",
    "removeProjectAccess",
    "create_encryption",
    "update_encryption",
    "delete_encryption",
)
