"""Keystone entities (domains, projects, users, groups, roles, regions, services, endpoints), in JSON
through the SDK's identity proxy (its v3 endpoint found by version discovery).

Bodies come from `providers.catalog.identity_bodies`. A project's marker is three tags (marker,
stack, managed: written as digests where Keystone's 255 characters without "/" or "," would refuse
them); every other entity keeps its marker as an extra attribute, which Keystone stores and shows
back. Keystone does not page its lists, so observation is one list per type, and `find_by_marker`
one list (projects filtered by `tags=`). A user's `groups` become memberships and the `roles` of a
user or group become grants, both made to match the template after a create or a change of them;
observed `roles` come from one `/role_assignments` list per pass. Passwords are sent, never read.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.identity_bodies import (
    ENTITIES,
    MARKER_ATTRIBUTE,
    Grant,
    desired_grants,
    entity_body,
    entity_properties,
    update_body,
)
from providers.interface import LiveResource, LiveStatus, Marker
from providers.marker_text import TextLimit
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.identity_grants import current_grants, grants_by_actor, sync_grants
from providers.openstack.marker_tags import marker_tag, marker_tags, physical_name, user_tags

KEYSTONE_TAG = TextLimit(255, "/,")
ACTOR_KINDS = {"OS::Keystone::User": "user", "OS::Keystone::Group": "group"}


@dataclass(frozen=True)
class IdentityHandler:
    apis: CloudApis
    type_name: str

    @property
    def path(self) -> str:
        return f"/{ENTITIES[self.type_name].collection}"

    @property
    def singular(self) -> str:
        return ENTITIES[self.type_name].singular

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        entity = ENTITIES[self.type_name]
        body = entity_body(self.type_name, properties, self.apis.identity_names.id_of)
        if entity.named and not body.get("name"):
            body["name"] = physical_name(marker)
        if entity.tags:
            body["tags"] = [*(properties.get("tags") or ()), *marker_tags(marker, KEYSTONE_TAG)]
        else:
            body[MARKER_ATTRIBUTE] = marker.tag
        created = self.apis.identity.post(self.path, {self.singular: body})[self.singular]
        self._sync_relations(created["id"], properties, frozenset({"groups", "roles"}))
        return self.live(created, marker=marker, grants=self._grants_of(created["id"]))

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        identity = self.apis.identity
        body = update_body(self.type_name, properties, changed, self.apis.identity_names.id_of)
        if body:
            identity.patch(f"{self.path}/{physical_id}", {self.singular: body})
        if "tags" in changed and ENTITIES[self.type_name].tags:
            current = identity.get(f"{self.path}/{physical_id}/tags").get("tags") or []
            kept = [tag for tag in current if tag not in user_tags(current)]
            identity.put(
                f"{self.path}/{physical_id}/tags", {"tags": [*kept, *(properties.get("tags") or ())]}
            )
        self._sync_relations(physical_id, properties, changed)
        current = identity.get(f"{self.path}/{physical_id}")[self.singular]
        return self.live(current, grants=self._grants_of(physical_id))

    def delete(self, physical_id: str) -> None:
        self.apis.identity.delete(f"{self.path}/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        found = [item for item in self.listed() if item["id"] in wanted]
        actor = ACTOR_KINDS.get(self.type_name)
        grants = grants_by_actor(self.apis.identity, actor) if actor and found else {}
        return {item["id"]: self.live(item, grants=grants.get(item["id"], set())) for item in found}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        if ENTITIES[self.type_name].tags:
            items = self.listed({"tags": marker_tag(marker, KEYSTONE_TAG)})
        else:
            items = [item for item in self.listed() if item.get(MARKER_ATTRIBUTE) == marker.tag]
        return self.live(items[0], marker=marker) if items else None

    def listed(self, params: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
        collection = ENTITIES[self.type_name].collection
        items: list[dict[str, Any]] = self.apis.identity.get(self.path, params).get(collection) or []
        return items

    def _grants_of(self, physical_id: str) -> set[Grant] | None:
        actor = ACTOR_KINDS.get(self.type_name)
        return None if actor is None else current_grants(self.apis.identity, actor, physical_id)

    def _sync_relations(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> None:
        actor = ACTOR_KINDS.get(self.type_name)
        if actor is None:
            return
        names = self.apis.identity_names
        if "roles" in changed:
            wanted = desired_grants(properties.get("roles"), names.id_of)
            sync_grants(
                self.apis.identity,
                actor,
                physical_id,
                wanted,
                current_grants(self.apis.identity, actor, physical_id),
            )
        if actor == "user" and "groups" in changed:
            self._sync_groups(
                physical_id, {names.id_of("group", str(group)) for group in properties.get("groups") or ()}
            )

    def _sync_groups(self, user_id: str, wanted: set[str]) -> None:
        identity = self.apis.identity
        current = {group["id"] for group in identity.get(f"/users/{user_id}/groups").get("groups") or ()}
        for group in sorted(wanted - current):
            identity.put(f"/groups/{group}/users/{user_id}", {})
        for group in sorted(current - wanted):
            identity.delete(f"/groups/{group}/users/{user_id}")

    def live(
        self, item: Mapping[str, Any], *, marker: Marker | None = None, grants: set[Grant] | None = None
    ) -> LiveResource:
        properties = entity_properties(self.type_name, item)
        if ENTITIES[self.type_name].tags:
            properties["tags"] = user_tags(item.get("tags") or [])
        if grants is not None:
            properties["roles"] = sorted(
                [grant.scope_kind, grant.scope_id, grant.role_id] for grant in grants
            )
        shown = {key: value for key, value in item.items() if key != "links"}
        attributes = {**shown, "show": shown}
        return LiveResource(
            physical_id=item["id"],
            type=self.type_name,
            status=LiveStatus.READY,
            properties=properties,
            attributes=attributes,
            marker=marker,
        )
