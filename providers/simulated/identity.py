"""Keystone's admin collections (identity v3): domains, projects, users, groups, roles, regions,
services and endpoints, group memberships and role assignments.

Bodies carry what Keystone's API shows; a field starting with `_` (a user's password) is the
model's own and never shown. As Keystone does, a create or update keeps attributes the API does not
define as the entity's "extra" attributes and shows them back; names are unique per domain
(projects, users, groups) or globally (roles), and a clash is a 409; project tags are at most 255
characters with no "/" or ",". Deleting a project with children, or a region with children or
endpoints, is refused (403, 409); deleting a service deletes its endpoints; deleting a user, group,
role or project deletes the memberships and role assignments that name it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, Forbidden, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

DEFAULT_DOMAIN_ID = "default"
PROTECTED = frozenset({"id", "links", "domain_id", "is_domain", "password_expires_at"})
TAG_LIMIT = 255
SEEDED_ROLES = ("admin", "member", "reader")


def require(world: CloudWorld, collection: str, item_id: Any, what: str) -> Body:
    body = world.inventory(collection).get(str(item_id))
    if body is None:
        raise ItemNotFound(f"Could not find {what}: {item_id}.")
    return body


class Entity:
    """One Keystone collection: its defaults, its required fields and where its names are unique."""

    collection = ""
    what = ""  # Keystone's word for it in messages
    quota_status = 403
    building: Building | None = None
    required: tuple[str, ...] = ("name",)
    defaults: Mapping[str, Any] = {}
    unique_per_domain = False  # names unique within a domain (else globally, when `unique_names`)
    unique_names = False

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        for key in self.required:
            if not isinstance(request.get(key), str) or not request[key]:
                raise BadRequest(
                    f"Invalid input for field '{key}': {request.get(key)!r} is not of type 'string'"
                )
        body: Body = {**self.defaults, **request}
        body["id"] = str(request.get("id") or world.new_id().replace("-", ""))
        if body["id"] in world.inventory(self.collection):
            raise Conflict(f"Conflict occurred attempting to store {self.what} - Duplicate ID, {body['id']}.")
        body = self.completed(world, body)
        self.refuse_duplicate_name(world, body)
        return body

    def completed(self, world: CloudWorld, body: Body) -> Body:
        """The body with the fields Keystone derives (override to check references)."""
        return body

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        refused = sorted(key for key in request if key in PROTECTED and request[key] != body.get(key))
        if refused:
            raise BadRequest(f"Invalid input for field '{refused[0]}': the field is immutable")
        updated = self.completed(world, {**body, **request})
        self.refuse_duplicate_name(world, updated)
        return updated

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None

    def refuse_duplicate_name(self, world: CloudWorld, body: Body) -> None:
        if not (self.unique_names or self.unique_per_domain) or not body.get("name"):
            return
        for other in world.inventory(self.collection).select(name=body["name"]):
            if other["id"] != body["id"] and (
                not self.unique_per_domain or other.get("domain_id") == body.get("domain_id")
            ):
                raise Conflict(
                    f"Conflict occurred attempting to store {self.what} - Duplicate entry found with name "
                    f"{body['name']}."
                )


class Domains(Entity):
    collection, what, unique_names = "domains", "domain", True
    defaults: Mapping[str, Any] = {"description": "", "enabled": True, "tags": []}


class Projects(Entity):
    collection, what, unique_per_domain = "projects", "project", True
    defaults: Mapping[str, Any] = {
        "description": "",
        "enabled": True,
        "tags": [],
        "options": {},
        "is_domain": False,
        "parent_id": None,
    }

    def completed(self, world: CloudWorld, body: Body) -> Body:
        domain = str(body.get("domain_id") or DEFAULT_DOMAIN_ID)
        require(world, "domains", domain, "domain")
        if body.get("parent_id") and body["parent_id"] != domain:
            parent = require(world, "projects", body["parent_id"], "project")
            domain = parent["domain_id"]
        else:
            body["parent_id"] = domain
        for tag in body.get("tags") or ():
            if not isinstance(tag, str) or len(tag) > TAG_LIMIT or "/" in tag or "," in tag:
                raise BadRequest(f"Invalid input for field 'tags': {tag!r} is not a valid tag")
        return {**body, "domain_id": domain}

    def delete(self, world: CloudWorld, body: Body) -> None:
        for other in world.inventory("projects"):
            if other.get("parent_id") == body["id"]:
                raise Forbidden(
                    f"Cannot delete the project {body['id']} since it is not a leaf in the hierarchy."
                )
        forget_assignments(world, lambda item: item["scope"].get("project", {}).get("id") == body["id"])


class Users(Entity):
    collection, what, unique_per_domain = "users", "user", True
    defaults: Mapping[str, Any] = {"enabled": True, "password_expires_at": None, "options": {}}

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        return hidden_password(super().create(world, request))

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        return hidden_password(super().update(world, body, request))

    def completed(self, world: CloudWorld, body: Body) -> Body:
        domain = str(body.get("domain_id") or DEFAULT_DOMAIN_ID)
        require(world, "domains", domain, "domain")
        if body.get("default_project_id"):
            require(world, "projects", body["default_project_id"], "project")
        return {**body, "domain_id": domain}

    def delete(self, world: CloudWorld, body: Body) -> None:
        forget_memberships(world, lambda item: item["user_id"] == body["id"])
        forget_assignments(world, lambda item: item.get("user", {}).get("id") == body["id"])


def hidden_password(body: Body) -> Body:
    """A user with the password moved where no answer shows it."""
    if "password" not in body:
        return body
    password = body.pop("password")
    return {**body, "_password": password}


class Groups(Entity):
    collection, what, unique_per_domain = "groups", "group", True
    defaults: Mapping[str, Any] = {"description": ""}

    def completed(self, world: CloudWorld, body: Body) -> Body:
        domain = str(body.get("domain_id") or DEFAULT_DOMAIN_ID)
        require(world, "domains", domain, "domain")
        return {**body, "domain_id": domain}

    def delete(self, world: CloudWorld, body: Body) -> None:
        forget_memberships(world, lambda item: item["group_id"] == body["id"])
        forget_assignments(world, lambda item: item.get("group", {}).get("id") == body["id"])


class Roles(Entity):
    collection, what, unique_names = "roles", "role", True
    defaults: Mapping[str, Any] = {"description": None, "domain_id": None, "options": {}}

    def delete(self, world: CloudWorld, body: Body) -> None:
        forget_assignments(world, lambda item: item["role"]["id"] == body["id"])


class Regions(Entity):
    collection, what, required = "regions", "region", ()
    defaults: Mapping[str, Any] = {"description": "", "parent_region_id": None}

    def completed(self, world: CloudWorld, body: Body) -> Body:
        if body.get("parent_region_id"):
            require(world, "regions", body["parent_region_id"], "region")
        return body

    def delete(self, world: CloudWorld, body: Body) -> None:
        children = [item for item in world.inventory("regions") if item.get("parent_region_id") == body["id"]]
        endpoints = [item for item in world.inventory("endpoints") if item.get("region_id") == body["id"]]
        if children or endpoints:
            raise Forbidden(
                f"Unable to delete region {body['id']} because it or its child regions have associated "
                "endpoints."
            )


class Services(Entity):
    collection, what, required = "services", "service", ("type",)
    defaults: Mapping[str, Any] = {"description": "", "enabled": True, "name": ""}

    def delete(self, world: CloudWorld, body: Body) -> None:
        for endpoint in list(world.inventory("endpoints")):
            if endpoint["service_id"] == body["id"]:
                world.inventory("endpoints").pop(endpoint["id"])


class Endpoints(Entity):
    collection, what, required = "endpoints", "endpoint", ("service_id", "interface", "url")
    defaults: Mapping[str, Any] = {"enabled": True, "region_id": None}

    def completed(self, world: CloudWorld, body: Body) -> Body:
        require(world, "services", body["service_id"], "service")
        if body.get("interface") not in ("public", "internal", "admin"):
            raise BadRequest(
                f"Invalid input for field 'interface': {body.get('interface')!r} is not one of "
                "['public', 'internal', 'admin']"
            )
        region = body.get("region_id") or body.get("region")
        if region:
            require(world, "regions", region, "region")
        return {**body, "region_id": region, "region": region}


class GroupMemberships(Entity):
    """A user in a group: id `group:user`; adding one twice is no change (Keystone's PUT)."""

    collection, what, required = "group_memberships", "membership", ("group_id", "user_id")

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        require(world, "groups", request.get("group_id"), "group")
        require(world, "users", request.get("user_id"), "user")
        return {
            "id": f"{request['group_id']}:{request['user_id']}",
            "group_id": request["group_id"],
            "user_id": request["user_id"],
        }


class RoleAssignments(Entity):
    """A role granted to a user or group on a project or domain, as /v3/role_assignments shows it."""

    collection, what, required = "role_assignments", "role assignment", ()

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        actor_kind, actor_id = str(request["actor_kind"]), str(request["actor_id"])
        scope_kind, scope_id = str(request["scope_kind"]), str(request["scope_id"])
        role_id = str(request["role_id"])
        require(world, "roles", role_id, "role")
        require(world, f"{actor_kind}s", actor_id, actor_kind)
        require(world, "projects" if scope_kind == "project" else "domains", scope_id, scope_kind)
        return {
            "id": assignment_id(scope_kind, scope_id, actor_kind, actor_id, role_id),
            "role": {"id": role_id},
            actor_kind: {"id": actor_id},
            "scope": {scope_kind: {"id": scope_id}},
        }


def assignment_id(scope_kind: str, scope_id: str, actor_kind: str, actor_id: str, role_id: str) -> str:
    return f"{scope_kind}:{scope_id}:{actor_kind}:{actor_id}:{role_id}"


def forget_assignments(world: CloudWorld, names_it: Any) -> None:
    inventory = world.inventory("role_assignments")
    for item in [item for item in inventory if names_it(item)]:
        inventory.pop(item["id"])


def forget_memberships(world: CloudWorld, names_it: Any) -> None:
    inventory = world.inventory("group_memberships")
    for item in [item for item in inventory if names_it(item)]:
        inventory.pop(item["id"])


def seed(world: CloudWorld) -> None:
    """Keystone's default domain, the standard roles, and the project and user tokens are issued for."""
    world.add(
        "domains",
        {
            "id": DEFAULT_DOMAIN_ID,
            "name": "Default",
            "description": "The default domain",
            "enabled": True,
            "tags": [],
        },
    )
    for name in SEEDED_ROLES:
        world.add("roles", Roles().create(world, {"name": name}))
    settings = world.settings
    world.add("projects", Projects().create(world, {"id": settings.project_id, "name": "demo"}))
    world.add(
        "users",
        Users().create(
            world, {"id": settings.user_id, "name": "demo", "default_project_id": settings.project_id}
        ),
    )


BEHAVIOURS = (
    Domains(),
    Projects(),
    Users(),
    Groups(),
    Roles(),
    Regions(),
    Services(),
    Endpoints(),
    GroupMemberships(),
    RoleAssignments(),
)
