"""Octavia's asynchronous life, shared by every object of a load balancer's tree.

A load balancer and each object under it (listeners, pools, members, health monitors, L7 policies
and rules) carry a `provisioning_status`: PENDING_CREATE -> ACTIVE after a create, PENDING_UPDATE ->
ACTIVE after an update, PENDING_DELETE -> gone after a delete. Any change to an object of the tree
also holds the load balancer in PENDING_UPDATE until the change is done, and while the load balancer
is not ACTIVE every further change to its tree is refused with Octavia's 409 ("Load Balancer ... is
immutable and cannot be updated."): clients wait for ACTIVE and try again. Changes take the cloud's
`time_to_active`; with none, they are done at once and the load balancer stays ACTIVE.

`operating_status` is OFFLINE while an object is created and ONLINE once ACTIVE; members report
NO_MONITOR while their pool has no health monitor, as Octavia's do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from providers.simulated.errors import Conflict
from providers.simulated.inventory import Body
from providers.simulated.world import READY, VANISH, Building, CloudWorld

OCTAVIA_QUOTA_STATUS = 403  # Octavia answers "Quota has been met" with a 403
STATUS = "provisioning_status"
ACTIVE, PENDING_CREATE, PENDING_UPDATE, PENDING_DELETE = (
    "ACTIVE",
    "PENDING_CREATE",
    "PENDING_UPDATE",
    "PENDING_DELETE",
)
OCTAVIA_BUILDING = Building(
    building=PENDING_CREATE,
    ready=ACTIVE,
    error="ERROR",
    status_key=STATUS,
    settling=(PENDING_UPDATE,),
    on_ready={"operating_status": "ONLINE"},
)
MEMBER_BUILDING = replace(
    OCTAVIA_BUILDING, on_ready={}
)  # a member's operating status follows its pool's monitor
LOAD_BALANCERS = "loadbalancers"


def change_delay(world: CloudWorld) -> float:
    return world.settings.time_to_active


def immutable(kind: str, item_id: str) -> Conflict:
    return Conflict(f"{kind} {item_id} is immutable and cannot be updated.")


def mutable_load_balancer(world: CloudWorld, lb_id: str) -> Body:
    """The load balancer, when its tree may change now; Octavia's 409 while it is busy."""
    load_balancer = world.require(LOAD_BALANCERS, lb_id, "Load Balancer")
    if load_balancer[STATUS] != ACTIVE:
        raise immutable("Load Balancer", lb_id)
    return load_balancer


def hold_load_balancer(world: CloudWorld, lb_id: str) -> None:
    """The load balancer is PENDING_UPDATE until the change to its tree is done."""
    load_balancer = world.inventory(LOAD_BALANCERS).get(lb_id)
    if load_balancer is None or change_delay(world) <= 0:
        return
    world.add(LOAD_BALANCERS, {**load_balancer, STATUS: PENDING_UPDATE, "updated_at": world.timestamp()})
    world.plan(world.now + change_delay(world), LOAD_BALANCERS, lb_id, READY)


def updated(world: CloudWorld, collection: str, body: Body, changes: Mapping[str, Any]) -> Body:
    """An object after an accepted update: PENDING_UPDATE until the change is done."""
    result = {**body, **changes, "updated_at": world.timestamp()}
    if change_delay(world) <= 0:
        return result
    world.plan(world.now + change_delay(world), collection, body["id"], READY)
    return {**result, STATUS: PENDING_UPDATE}


def linked(world: CloudWorld, collection: str, item_id: str | None, key: str, child_id: str) -> None:
    """Add `{"id": child_id}` to the `key` list of an item (a pool's members, a listener's policies)."""
    body = world.inventory(collection).get(item_id) if item_id else None
    if body is not None:
        world.add(collection, {**body, key: [*body[key], {"id": child_id}]})


def unlinked(world: CloudWorld, collection: str, item_id: str | None, key: str, child_id: str) -> None:
    body = world.inventory(collection).get(item_id) if item_id else None
    if body is not None:
        world.add(collection, {**body, key: [entry for entry in body[key] if entry["id"] != child_id]})


def removed_children(world: CloudWorld, collection: str, entries: list[dict[str, str]]) -> None:
    """Remove the listed children (a cascade); their own cleanup runs, missing ones are skipped."""
    for entry in list(entries):
        if entry["id"] in world.inventory(collection):
            world.remove(collection, entry["id"])


class TreeObject(Protocol):
    """A collection of a load balancer's tree that says which load balancer an object belongs to."""

    collection: str

    def load_balancer_of(self, world: CloudWorld, body: Body) -> str: ...

    def check_delete(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> None: ...


DeleteAction = Callable[[CloudWorld, Body, Mapping[str, Any]], Body]


def deleting(behaviour: TreeObject) -> DeleteAction:
    """The DELETE of one collection: refused while the tree is busy, else PENDING_DELETE until gone."""

    def begin(world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        behaviour.check_delete(world, body, request)
        collection = behaviour.collection
        lb_id = behaviour.load_balancer_of(world, body)
        if change_delay(world) <= 0:
            world.remove(collection, body["id"])
            return {}
        world.add(collection, {**body, STATUS: PENDING_DELETE, "updated_at": world.timestamp()})
        world.plan(world.now + change_delay(world), collection, body["id"], VANISH)
        if collection != LOAD_BALANCERS:
            hold_load_balancer(world, lb_id)
        return {}

    return begin
