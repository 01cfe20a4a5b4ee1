"""OS::Keystone::UserRoleAssignment and GroupRoleAssignment: grants of roles to one user or group.

The physical id is `<actor kind>/<actor id>/<record id>`. What each assignment granted is recorded
on the actor itself, as an extra attribute Keystone keeps (`GRANTS_ATTRIBUTE`, by record id), so
that a delete revokes exactly those grants (not the actor's own `roles`, nor another assignment's)
and `find_by_marker` finds the assignment after a crash. Observation is two lists per pass: the
actors and `/role_assignments`; an assignment whose recorded grants were revoked by hand shows
fewer `roles`, which is drift an update repairs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.identity_bodies import (
    GRANT_TYPES,
    GRANTS_ATTRIBUTE,
    Grant,
    desired_grants,
    grant_path,
    grant_triples,
    grants_from_triples,
)
from providers.interface import LiveResource, LiveStatus, Marker, NotFound
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.identity_grants import current_grants, grants_by_actor


@dataclass(frozen=True)
class RoleAssignmentHandler:
    apis: CloudApis
    type_name: str

    @property
    def actor_kind(self) -> str:
        return GRANT_TYPES[self.type_name][0]

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        actor_id = self.apis.identity_names.id_of(
            self.actor_kind, str(properties[GRANT_TYPES[self.type_name][1]])
        )
        physical_id = f"{self.actor_kind}/{actor_id}/{marker.record_id}"
        wanted = desired_grants(properties.get("roles"), self.apis.identity_names.id_of)
        self._apply(physical_id, wanted)
        return self._live(physical_id, wanted, marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        wanted = desired_grants(properties.get("roles"), self.apis.identity_names.id_of)
        self._apply(physical_id, wanted)
        return self._live(physical_id, wanted)

    def delete(self, physical_id: str) -> None:
        _, actor_id, record_id = physical_id.split("/", 2)
        recorded = self._recorded(actor_id)
        for grant in sorted(grants_from_triples(recorded.pop(record_id, None))):
            try:
                self.apis.identity.delete(grant_path(grant, self.actor_kind, actor_id))
            except NotFound:
                continue
        self._record(actor_id, recorded)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        if not physical_ids:
            return {}
        listed = self.apis.identity.get(f"/{self.actor_kind}s").get(f"{self.actor_kind}s") or ()
        actors = {item["id"]: item for item in listed}
        grants = grants_by_actor(self.apis.identity, self.actor_kind)
        found = {}
        for physical_id in physical_ids:
            _, actor_id, record_id = physical_id.split("/", 2)
            if actor_id in actors:
                recorded = grants_from_triples((actors[actor_id].get(GRANTS_ATTRIBUTE) or {}).get(record_id))
                found[physical_id] = self._live(physical_id, recorded & grants.get(actor_id, set()))
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        collection = f"{self.actor_kind}s"
        for item in self.apis.identity.get(f"/{collection}").get(collection) or ():
            if marker.record_id in (item.get(GRANTS_ATTRIBUTE) or {}):
                physical_id = f"{self.actor_kind}/{item['id']}/{marker.record_id}"
                recorded = grants_from_triples(item[GRANTS_ATTRIBUTE][marker.record_id])
                present = recorded & current_grants(self.apis.identity, self.actor_kind, item["id"])
                return self._live(physical_id, present, marker)
        return None

    def _apply(self, physical_id: str, wanted: set[Grant]) -> None:
        """Grant what is wanted, revoke what this assignment granted before and is wanted no more."""
        _, actor_id, record_id = physical_id.split("/", 2)
        recorded = self._recorded(actor_id)
        before = grants_from_triples(recorded.get(record_id))
        self._record(actor_id, {**recorded, record_id: grant_triples(wanted)})
        current = current_grants(self.apis.identity, self.actor_kind, actor_id)
        for grant in sorted(wanted - current):
            self.apis.identity.put(grant_path(grant, self.actor_kind, actor_id), {})
        for grant in sorted((before - wanted) & current):
            self.apis.identity.delete(grant_path(grant, self.actor_kind, actor_id))

    def _recorded(self, actor_id: str) -> dict[str, Any]:
        actor = self.apis.identity.get(f"/{self.actor_kind}s/{actor_id}")[self.actor_kind]
        return dict(actor.get(GRANTS_ATTRIBUTE) or {})

    def _record(self, actor_id: str, recorded: Mapping[str, Any]) -> None:
        self.apis.identity.patch(
            f"/{self.actor_kind}s/{actor_id}", {self.actor_kind: {GRANTS_ATTRIBUTE: dict(recorded)}}
        )

    def _live(self, physical_id: str, present: set[Grant], marker: Marker | None = None) -> LiveResource:
        _, actor_id, _ = physical_id.split("/", 2)
        return LiveResource(
            physical_id=physical_id,
            type=self.type_name,
            status=LiveStatus.READY,
            properties={"roles": grant_triples(present)},
            attributes={"show": {self.actor_kind: actor_id, "roles": grant_triples(present)}},
            marker=marker,
        )
