"""How Heat's Keystone properties become Keystone's request bodies, and how an entity Keystone
shows reads back as those properties: one answer for every backend that serves the identity types.

Names of domains, projects, roles, users, groups and services are resolved to ids by the backend
(`Resolve`); regions are named by id. A user's `password` goes into the create or update body and
nowhere else: it is never read back. Role grants (`roles` of a user or group, and the two role
assignment types) are `{role, project}` or `{role, domain}` entries, compared as
(scope kind, scope id, role id) triples. Heat makes a role without a `domain` (or in the default
domain) a global role.

Markers: Keystone keeps project tags (255 characters, no "/" or ","), and keeps any attribute its
API does not define as an "extra" attribute of domains, users, groups, roles, regions, services and
endpoints, so the marker rides there under `MARKER_ATTRIBUTE`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

Resolve = Callable[[str, str], str]  # (kind, name or id) -> id
MARKER_ATTRIBUTE = "reconciler_marker"
# On a user or group: record id -> the grants each role assignment resource made, so a delete
# revokes those and no other (the actor's own `roles`, another assignment's).
GRANTS_ATTRIBUTE = "reconciler_role_assignments"
DEFAULT_DOMAIN = "default"


@dataclass(frozen=True)
class Entity:
    """One Keystone collection a Heat type maps to: its path, its body key and its field table."""

    collection: str  # the path under /v3, e.g. "projects"
    singular: str  # the body key, e.g. "project"
    fields: Mapping[str, tuple[str, str | None]]  # property -> (API field, kind to resolve or None)
    tags: bool = False  # the marker is a tag (projects) rather than an extra attribute
    named: bool = True  # an unnamed one is given the marker's physical name


def _entity(
    collection: str, singular: str, fields: Mapping[str, tuple[str, str | None]], **flags: bool
) -> Entity:
    return Entity(collection, singular, MappingProxyType(dict(fields)), **flags)


ENTITIES: Mapping[str, Entity] = MappingProxyType(
    {
        "OS::Keystone::Domain": _entity(
            "domains",
            "domain",
            {"name": ("name", None), "description": ("description", None), "enabled": ("enabled", None)},
        ),
        "OS::Keystone::Project": _entity(
            "projects",
            "project",
            {
                "name": ("name", None),
                "description": ("description", None),
                "domain": ("domain_id", "domain"),
                "enabled": ("enabled", None),
                "parent": ("parent_id", "project"),
                "tags": ("tags", None),
            },
            tags=True,
        ),
        "OS::Keystone::User": _entity(
            "users",
            "user",
            {
                "name": ("name", None),
                "domain": ("domain_id", "domain"),
                "description": ("description", None),
                "enabled": ("enabled", None),
                "email": ("email", None),
                "password": ("password", None),
                "default_project": ("default_project_id", "project"),
            },
        ),
        "OS::Keystone::Group": _entity(
            "groups",
            "group",
            {"name": ("name", None), "domain": ("domain_id", "domain"), "description": ("description", None)},
        ),
        "OS::Keystone::Role": _entity(
            "roles", "role", {"name": ("name", None), "domain": ("domain_id", "domain")}
        ),
        "OS::Keystone::Region": _entity(
            "regions",
            "region",
            {
                "id": ("id", None),
                "description": ("description", None),
                "parent_region": ("parent_region_id", None),
                "enabled": ("enabled", None),
            },
            named=False,
        ),
        "OS::Keystone::Service": _entity(
            "services",
            "service",
            {
                "name": ("name", None),
                "type": ("type", None),
                "description": ("description", None),
                "enabled": ("enabled", None),
            },
        ),
        "OS::Keystone::Endpoint": _entity(
            "endpoints",
            "endpoint",
            {
                "service": ("service_id", "service"),
                "region": ("region_id", None),
                "interface": ("interface", None),
                "url": ("url", None),
                "name": ("name", None),
                "enabled": ("enabled", None),
            },
            named=False,
        ),
    }
)
# the role assignment types: type -> (the actor kind, the property naming the actor)
GRANT_TYPES: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "OS::Keystone::UserRoleAssignment": ("user", "user"),
        "OS::Keystone::GroupRoleAssignment": ("group", "group"),
    }
)
SECRET_FIELDS = frozenset({"password"})
NOT_UPDATED = frozenset({"id", "domain_id", "parent_id"})  # Keystone refuses to move these


@dataclass(frozen=True, order=True)
class Grant:
    scope_kind: str  # "project" | "domain"
    scope_id: str
    role_id: str


def entity_body(type_name: str, properties: Mapping[str, Any], resolve: Resolve) -> dict[str, Any]:
    """The create body's inner object for the given properties (names resolved to ids)."""
    entity = ENTITIES[type_name]
    body: dict[str, Any] = {}
    for name, (field, kind) in entity.fields.items():
        value = properties.get(name)
        if value is None or (value == "" and field.endswith("_id")):
            continue
        body[field] = resolve(kind, str(value)) if kind else value
    if type_name == "OS::Keystone::Role" and body.get("domain_id") == DEFAULT_DOMAIN:
        del body["domain_id"]
    return body


def update_body(
    type_name: str, properties: Mapping[str, Any], changed: frozenset[str], resolve: Resolve
) -> dict[str, Any]:
    """The PATCH body's inner object: the changed properties Keystone lets change."""
    body = entity_body(type_name, {name: properties.get(name) for name in changed}, resolve)
    return {field: value for field, value in body.items() if field not in NOT_UPDATED and field != "tags"}


def entity_properties(type_name: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The template's view of an entity Keystone shows (never a secret; names as Keystone holds ids)."""
    entity = ENTITIES[type_name]
    return {
        name: body.get(field)
        for name, (field, _) in entity.fields.items()
        if field in body and field not in SECRET_FIELDS and name != "tags"
    }


def desired_grants(roles: Any, resolve: Resolve) -> set[Grant]:
    """The grants a `roles` property asks for."""
    grants = set()
    for entry in roles or ():
        if not isinstance(entry, Mapping) or not entry.get("role"):
            continue
        role = resolve("role", str(entry["role"]))
        if entry.get("project"):
            grants.add(Grant("project", resolve("project", str(entry["project"])), role))
        elif entry.get("domain"):
            grants.add(Grant("domain", resolve("domain", str(entry["domain"])), role))
    return grants


def grant_of(assignment: Mapping[str, Any]) -> Grant | None:
    """The grant one entry of /v3/role_assignments shows (None for an inherited or system one)."""
    scope = assignment.get("scope") or {}
    for kind in ("project", "domain"):
        if isinstance(scope.get(kind), Mapping):
            return Grant(kind, str(scope[kind]["id"]), str((assignment.get("role") or {}).get("id")))
    return None


def grant_triples(grants: set[Grant]) -> list[list[str]]:
    """Grants as JSON: sorted [scope kind, scope id, role id] lists."""
    return sorted([grant.scope_kind, grant.scope_id, grant.role_id] for grant in grants)


def grants_from_triples(triples: Any) -> set[Grant]:
    return {Grant(str(kind), str(scope), str(role)) for kind, scope, role in triples or ()}


def grant_path(grant: Grant, actor_kind: str, actor_id: str) -> str:
    return f"/{grant.scope_kind}s/{grant.scope_id}/{actor_kind}s/{actor_id}/roles/{grant.role_id}"
