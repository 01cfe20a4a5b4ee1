"""Role grants of Keystone users and groups: read from `/role_assignments`, made to match a wanted
set with one PUT per missing grant and one DELETE per grant too many.
"""

from __future__ import annotations

from collections.abc import Mapping

from providers.catalog.identity_bodies import Grant, grant_of, grant_path
from providers.openstack.json_api import JsonApi


def current_grants(identity: JsonApi, actor_kind: str, actor_id: str) -> set[Grant]:
    listed = identity.get("/role_assignments", {f"{actor_kind}.id": actor_id}).get("role_assignments") or []
    return {grant for item in listed if (grant := grant_of(item)) is not None}


def grants_by_actor(identity: JsonApi, actor_kind: str) -> Mapping[str, set[Grant]]:
    """Every grant of every user (or group), from one list."""
    found: dict[str, set[Grant]] = {}
    for item in identity.get("/role_assignments").get("role_assignments") or []:
        actor = item.get(actor_kind)
        grant = grant_of(item)
        if isinstance(actor, Mapping) and grant is not None:
            found.setdefault(str(actor["id"]), set()).add(grant)
    return found


def sync_grants(
    identity: JsonApi, actor_kind: str, actor_id: str, wanted: set[Grant], current: set[Grant]
) -> None:
    for grant in sorted(wanted - current):
        identity.put(grant_path(grant, actor_kind, actor_id), {})
    for grant in sorted(current - wanted):
        identity.delete(grant_path(grant, actor_kind, actor_id))
