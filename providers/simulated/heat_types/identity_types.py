"""The Keystone types on the simulated cloud, with no HTTP between: bodies as
`providers.catalog.identity_bodies` writes them, in the cloud's identity collections.

Markers as over HTTP: a project's in its tags (a digest where Keystone would refuse the tag), every
other entity's in the `reconciler_marker` extra attribute. A user's groups are memberships, the
`roles` of a user or group (and of the role assignment types) are grants. A role assignment's
physical id is `<actor kind>/<actor id>/<record id>`, and what it granted is recorded on the actor,
so that deleting it revokes only those grants.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.catalog.identity_bodies import (
    ENTITIES,
    GRANT_TYPES,
    GRANTS_ATTRIBUTE,
    MARKER_ATTRIBUTE,
    Grant,
    desired_grants,
    entity_body,
    entity_properties,
    grant_of,
    grant_triples,
    grants_from_triples,
    update_body,
)
from providers.interface import LiveResource, LiveStatus, Marker
from providers.marker_text import TextLimit, bounded_name
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.heat_types.adapter import split_tags
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.identity import assignment_id
from providers.simulated.inventory import Body

KEYSTONE_TAG = TextLimit(255, "/,")
ACTOR_KINDS = {"OS::Keystone::User": "user", "OS::Keystone::Group": "group"}


def resolver_on(cloud: SimulatedCloud) -> Any:
    """Names (or ids) of identity entities to ids, by one list call each."""

    def resolve(kind: str, name_or_id: str) -> str:
        collection = f"{kind}s"
        if cloud.list(collection, ids=[name_or_id]):
            return name_or_id
        found = cloud.list(collection, name=name_or_id)
        if len(found) != 1:
            raise BadRequest(f"The {kind} ({name_or_id}) could not be found.")
        return str(found[0]["id"])

    return resolve


def grants_of(cloud: SimulatedCloud, actor_kind: str, actor_id: str | None = None) -> dict[str, set[Grant]]:
    found: dict[str, set[Grant]] = {}
    for item in cloud.list("role_assignments"):
        actor = item.get(actor_kind)
        grant = grant_of(item)
        if isinstance(actor, Mapping) and grant is not None and actor_id in (None, actor["id"]):
            found.setdefault(str(actor["id"]), set()).add(grant)
    return found


def sync_grants(
    cloud: SimulatedCloud, actor_kind: str, actor_id: str, wanted: set[Grant], revocable: set[Grant]
) -> None:
    current = grants_of(cloud, actor_kind, actor_id).get(actor_id, set())
    for grant in sorted(wanted - current):
        cloud.create(
            "role_assignments",
            {
                "actor_kind": actor_kind,
                "actor_id": actor_id,
                "scope_kind": grant.scope_kind,
                "scope_id": grant.scope_id,
                "role_id": grant.role_id,
            },
        )
    for grant in sorted((current - wanted) & revocable):
        cloud.delete(
            "role_assignments",
            assignment_id(grant.scope_kind, grant.scope_id, actor_kind, actor_id, grant.role_id),
        )


class IdentityEntity:
    type_name: ClassVar[str] = ""

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    @property
    def collection(self) -> str:
        return ENTITIES[self.type_name].collection

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        entity = ENTITIES[self.type_name]
        request = entity_body(self.type_name, properties, resolver_on(cloud))
        if entity.named and not request.get("name"):
            request["name"] = bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id[:12]}")
        if entity.tags:
            request["tags"] = [
                *(properties.get("tags") or ()),
                KEYSTONE_TAG.fitted(marker.tag),
                KEYSTONE_TAG.fitted(marker.stack_tag),
            ]
        else:
            request[MARKER_ATTRIBUTE] = marker.tag
        body = cloud.create(self.collection, request)
        self._sync_relations(cloud, body["id"], properties, frozenset({"roles", "groups"}))
        return self.live(cloud, body, marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        request = update_body(self.type_name, properties, changed, resolver_on(cloud))
        if "tags" in changed and ENTITIES[self.type_name].tags:
            current = cloud.get(self.collection, physical_id)
            kept = [tag for tag in current.get("tags") or () if tag not in split_tags(current)[1]]
            request["tags"] = [*kept, *(properties.get("tags") or ())]
        body = (
            cloud.update(self.collection, physical_id, request)
            if request
            else cloud.get(self.collection, physical_id)
        )
        self._sync_relations(cloud, physical_id, properties, changed)
        return self.live(cloud, body)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete(self.collection, physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {
            body["id"]: self.live(cloud, body) for body in cloud.list(self.collection, ids=list(physical_ids))
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        if ENTITIES[self.type_name].tags:
            found = cloud.list(self.collection, tags=[KEYSTONE_TAG.fitted(marker.tag)])
        else:
            found = cloud.list(self.collection, where={MARKER_ATTRIBUTE: marker.tag})
        return self.live(cloud, found[0], marker) if found else None

    def _sync_relations(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> None:
        actor = ACTOR_KINDS.get(self.type_name)
        if actor is None:
            return
        resolve = resolver_on(cloud)
        if "roles" in changed:
            wanted = desired_grants(properties.get("roles"), resolve)
            sync_grants(
                cloud,
                actor,
                physical_id,
                wanted,
                grants_of(cloud, actor, physical_id).get(physical_id, set()),
            )
        if actor == "user" and "groups" in changed:
            wanted_groups = {resolve("group", str(group)) for group in properties.get("groups") or ()}
            current = {
                item["group_id"] for item in cloud.list("group_memberships", where={"user_id": physical_id})
            }
            for group in sorted(wanted_groups - current):
                cloud.create("group_memberships", {"group_id": group, "user_id": physical_id})
            for group in sorted(current - wanted_groups):
                cloud.delete("group_memberships", f"{group}:{physical_id}")

    def live(self, cloud: SimulatedCloud, body: Body, marker: Marker | None = None) -> LiveResource:
        shown = {key: value for key, value in body.items() if not key.startswith("_")}
        properties = entity_properties(self.type_name, shown)
        if ENTITIES[self.type_name].tags:
            properties["tags"] = split_tags(body)[1]
        actor = ACTOR_KINDS.get(self.type_name)
        if actor is not None:
            properties["roles"] = grant_triples(grants_of(cloud, actor, body["id"]).get(body["id"], set()))
        return LiveResource(
            body["id"], self.type_name, LiveStatus.READY, properties, {**shown, "show": shown}, marker
        )


class RoleAssignment:
    type_name: ClassVar[str] = ""

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    @property
    def actor_kind(self) -> str:
        return GRANT_TYPES[self.type_name][0]

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        resolve = resolver_on(cloud)
        actor_id = resolve(self.actor_kind, str(properties[GRANT_TYPES[self.type_name][1]]))
        physical_id = f"{self.actor_kind}/{actor_id}/{marker.record_id}"
        return self._applied(cloud, physical_id, desired_grants(properties.get("roles"), resolve), marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return self._applied(cloud, physical_id, desired_grants(properties.get("roles"), resolver_on(cloud)))

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        _, actor_id, record_id = physical_id.split("/", 2)
        recorded = self._recorded(cloud, actor_id)
        granted = grants_from_triples(recorded.pop(record_id, None))
        sync_grants(cloud, self.actor_kind, actor_id, set(), granted)
        cloud.update(f"{self.actor_kind}s", actor_id, {GRANTS_ATTRIBUTE: recorded})

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        found = {}
        present = grants_of(cloud, self.actor_kind)
        for physical_id in physical_ids:
            _, actor_id, record_id = physical_id.split("/", 2)
            actors = cloud.list(f"{self.actor_kind}s", ids=[actor_id])
            if actors:
                recorded = grants_from_triples((actors[0].get(GRANTS_ATTRIBUTE) or {}).get(record_id))
                found[physical_id] = self._live(physical_id, recorded & present.get(actor_id, set()))
        return found

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        for actor in cloud.list(f"{self.actor_kind}s"):
            if marker.record_id in (actor.get(GRANTS_ATTRIBUTE) or {}):
                physical_id = f"{self.actor_kind}/{actor['id']}/{marker.record_id}"
                return self.observe(cloud, [physical_id]).get(physical_id)
        return None

    def _applied(
        self, cloud: SimulatedCloud, physical_id: str, wanted: set[Grant], marker: Marker | None = None
    ) -> LiveResource:
        _, actor_id, record_id = physical_id.split("/", 2)
        recorded = self._recorded(cloud, actor_id)
        before = grants_from_triples(recorded.get(record_id))
        cloud.update(
            f"{self.actor_kind}s",
            actor_id,
            {GRANTS_ATTRIBUTE: {**recorded, record_id: grant_triples(wanted)}},
        )
        sync_grants(cloud, self.actor_kind, actor_id, wanted, before)
        return self._live(physical_id, wanted, marker)

    def _recorded(self, cloud: SimulatedCloud, actor_id: str) -> dict[str, Any]:
        actor = cloud.get(f"{self.actor_kind}s", actor_id)
        return dict(actor.get(GRANTS_ATTRIBUTE) or {})

    def _live(self, physical_id: str, present: set[Grant], marker: Marker | None = None) -> LiveResource:
        _, actor_id, _ = physical_id.split("/", 2)
        roles = grant_triples(present)
        return LiveResource(
            physical_id,
            self.type_name,
            LiveStatus.READY,
            {"roles": roles},
            {"show": {self.actor_kind: actor_id, "roles": roles}},
            marker,
        )


class Domain(IdentityEntity):
    type_name = "OS::Keystone::Domain"


class Project(IdentityEntity):
    type_name = "OS::Keystone::Project"


class User(IdentityEntity):
    type_name = "OS::Keystone::User"


class Group(IdentityEntity):
    type_name = "OS::Keystone::Group"


class Role(IdentityEntity):
    type_name = "OS::Keystone::Role"


class Region(IdentityEntity):
    type_name = "OS::Keystone::Region"


class Service(IdentityEntity):
    type_name = "OS::Keystone::Service"


class Endpoint(IdentityEntity):
    type_name = "OS::Keystone::Endpoint"


class UserRoleAssignment(RoleAssignment):
    type_name = "OS::Keystone::UserRoleAssignment"


class GroupRoleAssignment(RoleAssignment):
    type_name = "OS::Keystone::GroupRoleAssignment"


TYPES = (
    Domain,
    Project,
    User,
    Group,
    Role,
    Region,
    Service,
    Endpoint,
    UserRoleAssignment,
    GroupRoleAssignment,
)
