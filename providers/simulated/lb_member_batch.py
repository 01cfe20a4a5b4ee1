"""Octavia's batch member update: `PUT /v2/lbaas/pools/{pool_id}/members` with the pool's new list.

One change of the load balancer's tree for the whole list, as Octavia makes it: refused with the
409 "immutable" while the load balancer is busy, then the load balancer is PENDING_UPDATE once.
Each member listed is matched to the pool's members by address and protocol port: a new one is
created (PENDING_CREATE), a known one takes the listed updatable fields (PENDING_UPDATE when any
changed), and the pool's members not listed are deleted (PENDING_DELETE), unless the request is
`additive_only` (API 2.11), which leaves them as they are. The same address and port twice in one
list is a 400. The answer carries the members made or changed, for the in-process provider; the
HTTP face answers 202 with no body, as Octavia does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.field_limits import check_fields
from providers.simulated.inventory import Body
from providers.simulated.lb_lifecycle import (
    PENDING_DELETE,
    STATUS,
    change_delay,
    hold_load_balancer,
    linked,
    mutable_load_balancer,
    updated,
)
from providers.simulated.lb_members import MEMBER_UPDATABLE, member_key, new_member
from providers.simulated.world import VANISH, CloudWorld

MEMBERS = "members"


def update_members(world: CloudWorld, pool: Body, request: Mapping[str, Any]) -> Body:
    """The pool's members made to match `request["members"]`; the load balancer held once."""
    lb_id = str(pool["loadbalancers"][0]["id"])
    mutable_load_balancer(world, lb_id)
    listed = list(request.get("members") or ())
    keys = [member_key(member) for member in listed]
    if len(set(keys)) != len(keys):
        raise BadRequest("Invalid input: the same address and protocol_port is listed twice.")
    current = _members_by_key(world, pool)
    new_ones = [member for key, member in zip(keys, listed, strict=True) if key not in current]
    world.check_quota(MEMBERS, len(new_ones))
    answered = [
        _changed(world, current[key], member)
        for key, member in zip(keys, listed, strict=True)
        if key in current
    ]
    for member in new_ones:
        check_fields(MEMBERS, member)
        body = world.start_building(MEMBERS, new_member(world, pool["id"], member))
        world.add(MEMBERS, body)
        linked(world, "pools", pool["id"], MEMBERS, body["id"])
        answered.append(body)
    if not request.get("additive_only"):
        kept = set(keys)
        for key, body in current.items():
            if key not in kept:
                _deleting(world, body)
    hold_load_balancer(world, lb_id)
    return {MEMBERS: answered}


def _members_by_key(world: CloudWorld, pool: Body) -> dict[tuple[Any, Any], Body]:
    members = world.inventory(MEMBERS)
    found = (members.get(entry["id"]) for entry in pool[MEMBERS])
    return {(body["address"], body["protocol_port"]): body for body in found if body is not None}


def _changed(world: CloudWorld, body: Body, member: Mapping[str, Any]) -> Body:
    """A listed member already in the pool: its updatable fields as listed, the rest ignored."""
    changes = {
        key: value for key, value in member.items() if key in MEMBER_UPDATABLE and body.get(key) != value
    }
    if not changes:
        return body
    return world.add(MEMBERS, updated(world, MEMBERS, body, changes))


def _deleting(world: CloudWorld, body: Body) -> None:
    if change_delay(world) <= 0:
        world.remove(MEMBERS, body["id"])
        return
    world.add(MEMBERS, {**body, STATUS: PENDING_DELETE, "updated_at": world.timestamp()})
    world.plan(world.now + change_delay(world), MEMBERS, body["id"], VANISH)
