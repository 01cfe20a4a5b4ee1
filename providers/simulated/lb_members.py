"""Octavia's pool members and health monitors.

A member is an address and port in one pool (409 when the pool already has that pair); its
operating status is NO_MONITOR while the pool has no health monitor and ONLINE once it has one. A
pool has at most one health monitor (409 otherwise). The pool a member belongs to is kept in the
member's internal `_pool_id`, since Octavia reaches members only through their pool's URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.lb_lifecycle import (
    MEMBER_BUILDING,
    OCTAVIA_BUILDING,
    OCTAVIA_QUOTA_STATUS,
    hold_load_balancer,
    linked,
    mutable_load_balancer,
    unlinked,
    updated,
)
from providers.simulated.lb_listeners import mandatory, one_of
from providers.simulated.load_balancers import octavia_fields, refused_keys
from providers.simulated.world import Building, CloudWorld

MONITOR_TYPES = frozenset({"PING", "TCP", "HTTP", "HTTPS", "TLS-HELLO", "UDP-CONNECT", "SCTP"})
HTTP_MONITORS = frozenset({"HTTP", "HTTPS"})
MEMBER_UPDATABLE = frozenset(
    {"name", "admin_state_up", "weight", "backup", "monitor_address", "monitor_port", "tags"}
)
MONITOR_UPDATABLE = frozenset(
    {
        "name",
        "admin_state_up",
        "delay",
        "timeout",
        "max_retries",
        "max_retries_down",
        "http_method",
        "url_path",
        "expected_codes",
        "http_version",
        "domain_name",
        "tags",
    }
)


def pool_load_balancer(world: CloudWorld, pool_id: str) -> str:
    pool = world.require("pools", pool_id, "Pool")
    return str(pool["loadbalancers"][0]["id"])


def monitored_status(world: CloudWorld, pool_id: str) -> str:
    pool = world.inventory("pools").get(pool_id)
    return "ONLINE" if pool is not None and pool["healthmonitor_id"] else "NO_MONITOR"


def members_report(world: CloudWorld, pool_id: str) -> None:
    """Every member of the pool reports what its pool's monitor (or its absence) says."""
    pool = world.inventory("pools").get(pool_id)
    status = monitored_status(world, pool_id)
    for entry in (pool or {}).get("members", ()):
        member = world.inventory("members").get(entry["id"])
        if member is not None:
            world.add("members", {**member, "operating_status": status})


def member_key(request: Mapping[str, Any]) -> tuple[Any, Any]:
    """What makes a member unique in its pool: its address and port."""
    return mandatory(request, "address"), mandatory(request, "protocol_port")


def new_member(world: CloudWorld, pool_id: str, request: Mapping[str, Any]) -> Body:
    """A member's body, checked against its pool's other members (the caller links and holds)."""
    address, port = member_key(request)
    pool = world.require("pools", pool_id, "Pool")
    for entry in pool["members"]:
        other = world.inventory("members").get(entry["id"])
        if other and (other["address"], other["protocol_port"]) == (address, port):
            raise Conflict(
                f"Another member on this pool is already using ip {address} on protocol_port {port}"
            )
    if request.get("subnet_id") and request["subnet_id"] not in world.inventory("subnets"):
        raise BadRequest(f"Validation failure: Subnet {request['subnet_id']} not found.")
    return {
        **octavia_fields(world, request),
        "operating_status": monitored_status(world, pool_id),
        "address": address,
        "protocol_port": port,
        "weight": request.get("weight", 1),
        "backup": bool(request.get("backup", False)),
        "subnet_id": request.get("subnet_id"),
        "monitor_address": request.get("monitor_address"),
        "monitor_port": request.get("monitor_port"),
        "_pool_id": pool_id,
    }


class Members:
    collection = "members"
    quota_status = OCTAVIA_QUOTA_STATUS
    building: Building | None = MEMBER_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        pool_id = str(mandatory(request, "pool_id"))
        lb_id = pool_load_balancer(world, pool_id)
        mutable_load_balancer(world, lb_id)
        body = new_member(world, pool_id, request)
        linked(world, "pools", pool_id, "members", body["id"])
        hold_load_balancer(world, lb_id)
        return body

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        refused_keys(request, MEMBER_UPDATABLE)
        lb_id = self.load_balancer_of(world, body)
        mutable_load_balancer(world, lb_id)
        hold_load_balancer(world, lb_id)
        return updated(world, self.collection, body, request)

    def load_balancer_of(self, world: CloudWorld, body: Body) -> str:
        return pool_load_balancer(world, body["_pool_id"])

    def check_delete(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> None:
        mutable_load_balancer(world, self.load_balancer_of(world, body))

    def delete(self, world: CloudWorld, body: Body) -> None:
        unlinked(world, "pools", body["_pool_id"], "members", body["id"])


class HealthMonitors:
    collection = "healthmonitors"
    quota_status = OCTAVIA_QUOTA_STATUS
    building: Building | None = OCTAVIA_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        pool_id = str(mandatory(request, "pool_id"))
        lb_id = pool_load_balancer(world, pool_id)
        mutable_load_balancer(world, lb_id)
        pool = world.require("pools", pool_id, "Pool")
        if pool["healthmonitor_id"]:
            raise Conflict("This pool already has a health monitor")
        kind = one_of(request, "type", MONITOR_TYPES)
        http = kind in HTTP_MONITORS
        body = {
            **octavia_fields(world, request),
            "type": kind,
            "delay": mandatory(request, "delay"),
            "timeout": mandatory(request, "timeout"),
            "max_retries": mandatory(request, "max_retries"),
            "max_retries_down": request.get("max_retries_down", 3),
            "http_method": request.get("http_method", "GET") if http else None,
            "url_path": request.get("url_path", "/") if http else None,
            "expected_codes": request.get("expected_codes", "200") if http else None,
            "http_version": request.get("http_version"),
            "domain_name": request.get("domain_name"),
            "pools": [{"id": pool_id}],
        }
        world.add("pools", {**pool, "healthmonitor_id": body["id"]})
        members_report(world, pool_id)
        hold_load_balancer(world, lb_id)
        return body

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        refused_keys(request, MONITOR_UPDATABLE)
        lb_id = self.load_balancer_of(world, body)
        mutable_load_balancer(world, lb_id)
        hold_load_balancer(world, lb_id)
        return updated(world, self.collection, body, request)

    def load_balancer_of(self, world: CloudWorld, body: Body) -> str:
        return pool_load_balancer(world, body["pools"][0]["id"])

    def check_delete(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> None:
        mutable_load_balancer(world, self.load_balancer_of(world, body))

    def delete(self, world: CloudWorld, body: Body) -> None:
        pool_id = body["pools"][0]["id"]
        pool = world.inventory("pools").get(pool_id)
        if pool is not None and pool["healthmonitor_id"] == body["id"]:
            world.add("pools", {**pool, "healthmonitor_id": None})
            members_report(world, pool_id)
