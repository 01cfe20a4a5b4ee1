"""Nova's flavors beyond reading them: made and deleted by the API (an admin's calls; this cloud
models no roles), their extra specs set and unset one by one, and private flavors' project access.

A name or id already taken is a 409, as Nova answers; access cannot be given to a public flavor;
only the description changes in place (Nova's `PUT /flavors/{id}` from 2.55). Seeded flavors are
made the same way (see `seeds`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

EXTRA_SPEC_KEY = re.compile(r"^[a-zA-Z0-9-_:. ]{1,255}$")
FLAVOR_ACTIONS = ("addTenantAccess", "removeTenantAccess", "set_extra_specs", "unset_extra_spec")


class Flavors:
    collection = "flavors"
    quota_status = 403
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = str(request.get("name") or "").strip()
        if not name:
            raise BadRequest("Invalid input for field/attribute name.")
        flavor_id = str(request.get("id") or world.new_id())
        for held in world.inventory("flavors"):
            if held["name"] == name:
                raise Conflict(f"Flavor with name {name} already exists.")
            if held["id"] == flavor_id:
                raise Conflict(f"Flavor with ID {flavor_id} already exists.")
        for field in ("ram", "vcpus"):
            if not isinstance(request.get(field, 1), int) or request.get(field, 1) < 1:
                raise BadRequest(f"Invalid input for field/attribute {field}. Value: {request.get(field)}.")
        return {
            "id": flavor_id,
            "name": name,
            "ram": request.get("ram", 512),
            "vcpus": request.get("vcpus", 1),
            "disk": request.get("disk", 1),
            "OS-FLV-EXT-DATA:ephemeral": request.get("OS-FLV-EXT-DATA:ephemeral", 0),
            "swap": request.get("swap") or 0,
            "rxtx_factor": float(request.get("rxtx_factor", 1.0)),
            "os-flavor-access:is_public": bool(request.get("os-flavor-access:is_public", True)),
            "description": request.get("description"),
            "extra_specs": {},
            "_projects": [],
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        unknown = sorted(set(request) - {"description"})
        if unknown:
            raise BadRequest(f"Additional properties are not allowed ({', '.join(unknown)} were unexpected)")
        return {**body, "description": request.get("description")}

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None  # Nova deletes a flavor servers still use: they keep their embedded copy


def flavor_action(world: CloudWorld, flavor: Body, action: str, request: Mapping[str, Any]) -> Body:
    """Extra specs set (merged) or one unset, and project access given or taken back."""
    if action == "set_extra_specs":
        specs = request.get("extra_specs")
        if not isinstance(specs, Mapping) or not all(EXTRA_SPEC_KEY.match(str(key)) for key in specs):
            raise BadRequest("Invalid input for field/attribute extra_specs.")
        return {**flavor, "extra_specs": {**flavor["extra_specs"], **{k: str(v) for k, v in specs.items()}}}
    if action == "unset_extra_spec":
        key = str(request.get("key"))
        if key not in flavor["extra_specs"]:
            raise ItemNotFound(f"Flavor {flavor['id']} has no extra specs with key {key}.")
        return {**flavor, "extra_specs": {k: v for k, v in flavor["extra_specs"].items() if k != key}}
    tenant = str((request.get(action) or {}).get("tenant"))
    projects = list(flavor["_projects"])
    if action == "addTenantAccess":
        if flavor["os-flavor-access:is_public"]:
            raise Conflict("Can not add access to a public flavor.")
        if tenant in projects:
            raise Conflict(f"Flavor access already exists for flavor {flavor['id']} and project {tenant}")
        return {**flavor, "_projects": [*projects, tenant]}
    if tenant not in projects:
        raise ItemNotFound(f"Flavor access not found for {flavor['id']} / {tenant} combination.")
    return {**flavor, "_projects": [project for project in projects if project != tenant]}


def flavor_access(flavor: Body) -> list[dict[str, str]]:
    return [{"flavor_id": flavor["id"], "tenant_id": project} for project in flavor["_projects"]]
