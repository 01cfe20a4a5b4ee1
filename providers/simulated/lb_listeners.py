"""Octavia's listeners and pools: the front and back of a load balancer.

A listener belongs to one load balancer and listens on a protocol port no other listener of that
load balancer uses (409 otherwise). A pool belongs to a load balancer, directly or through the
listener it was created for, which then takes it as its default pool (409 when that listener has
one). Deleting a listener removes its L7 policies; deleting a pool removes its members and its
health monitor and clears it from listeners that used it as their default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.lb_lifecycle import (
    LOAD_BALANCERS,
    OCTAVIA_BUILDING,
    OCTAVIA_QUOTA_STATUS,
    hold_load_balancer,
    linked,
    mutable_load_balancer,
    removed_children,
    unlinked,
    updated,
)
from providers.simulated.load_balancers import octavia_fields, refused_keys
from providers.simulated.world import Building, CloudWorld

PROTOCOLS = frozenset({"TCP", "HTTP", "HTTPS", "TERMINATED_HTTPS", "PROXY", "PROXYV2", "UDP", "SCTP"})
ALGORITHMS = frozenset({"ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"})
LISTENER_UPDATABLE = frozenset(
    {
        "name",
        "description",
        "admin_state_up",
        "connection_limit",
        "default_pool_id",
        "default_tls_container_ref",
        "sni_container_refs",
        "allowed_cidrs",
        "tags",
        "insert_headers",
        "timeout_client_data",
        "timeout_member_connect",
        "timeout_member_data",
        "timeout_tcp_inspect",
    }
)
POOL_UPDATABLE = frozenset(
    {"name", "description", "admin_state_up", "lb_algorithm", "session_persistence", "tls_enabled", "tags"}
)


def mandatory(request: Mapping[str, Any], key: str) -> Any:
    value = request.get(key)
    if value is None:
        raise BadRequest(f"Invalid input for field/attribute {key}. Value: 'None'. Mandatory field missing.")
    return value


def one_of(request: Mapping[str, Any], key: str, allowed: frozenset[str]) -> str:
    value = mandatory(request, key)
    if value not in allowed:
        raise BadRequest(
            f"Invalid input for field/attribute {key}. Value: '{value}'. Value should be one of: "
            f"{', '.join(sorted(allowed))}"
        )
    return str(value)


def pool_on(world: CloudWorld, pool_id: str, lb_id: str) -> Body:
    pool = world.inventory("pools").get(pool_id)
    if pool is None or pool["loadbalancers"][0]["id"] != lb_id:
        raise BadRequest(f"Validation failure: Pool {pool_id} is not on the listener's load balancer.")
    return pool


class Listeners:
    collection = "listeners"
    quota_status = OCTAVIA_QUOTA_STATUS
    building: Building | None = OCTAVIA_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        lb_id = str(mandatory(request, "loadbalancer_id"))
        load_balancer = mutable_load_balancer(world, lb_id)
        protocol = one_of(request, "protocol", PROTOCOLS)
        port = mandatory(request, "protocol_port")
        if not isinstance(port, int) or not 1 <= port <= 65535:
            raise BadRequest(f"Invalid input for field/attribute protocol_port. Value: '{port}'.")
        for entry in load_balancer["listeners"]:
            other = world.inventory(self.collection).get(entry["id"])
            if (
                other
                and other["protocol_port"] == port
                and (other["protocol"] == "UDP") == (protocol == "UDP")
            ):
                raise Conflict(
                    f"Another Listener on this Load Balancer is already using protocol {protocol} "
                    f"and protocol_port {port}"
                )
        default_pool = request.get("default_pool_id")
        if default_pool:
            pool_on(world, str(default_pool), lb_id)
        body = {
            **octavia_fields(world, request),
            "protocol": protocol,
            "protocol_port": port,
            "connection_limit": request.get("connection_limit", -1),
            "default_pool_id": default_pool,
            "default_tls_container_ref": request.get("default_tls_container_ref"),
            "sni_container_refs": list(request.get("sni_container_refs") or ()),
            "allowed_cidrs": request.get("allowed_cidrs"),
            "insert_headers": dict(request.get("insert_headers") or {}),
            "loadbalancers": [{"id": lb_id}],
            "l7policies": [],
        }
        linked(world, LOAD_BALANCERS, lb_id, "listeners", body["id"])
        if default_pool:
            linked(world, "pools", str(default_pool), "listeners", body["id"])
        hold_load_balancer(world, lb_id)
        return body

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        refused_keys(request, LISTENER_UPDATABLE)
        lb_id = self.load_balancer_of(world, body)
        mutable_load_balancer(world, lb_id)
        if "default_pool_id" in request and request["default_pool_id"] != body["default_pool_id"]:
            if request["default_pool_id"]:
                pool_on(world, str(request["default_pool_id"]), lb_id)
                linked(world, "pools", str(request["default_pool_id"]), "listeners", body["id"])
            unlinked(world, "pools", body["default_pool_id"], "listeners", body["id"])
        hold_load_balancer(world, lb_id)
        return updated(world, self.collection, body, request)

    def load_balancer_of(self, world: CloudWorld, body: Body) -> str:
        return str(body["loadbalancers"][0]["id"])

    def check_delete(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> None:
        mutable_load_balancer(world, self.load_balancer_of(world, body))

    def delete(self, world: CloudWorld, body: Body) -> None:
        removed_children(world, "l7policies", body["l7policies"])
        unlinked(world, "pools", body["default_pool_id"], "listeners", body["id"])
        unlinked(world, LOAD_BALANCERS, self.load_balancer_of(world, body), "listeners", body["id"])


class Pools:
    collection = "pools"
    quota_status = OCTAVIA_QUOTA_STATUS
    building: Building | None = OCTAVIA_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        listener_id = request.get("listener_id")
        listener = world.require("listeners", str(listener_id), "Listener") if listener_id else None
        lb_id = listener["loadbalancers"][0]["id"] if listener else request.get("loadbalancer_id")
        if not lb_id:
            raise BadRequest("Validation failure: loadbalancer_id or listener_id must be specified.")
        mutable_load_balancer(world, str(lb_id))
        if listener and listener["default_pool_id"]:
            raise Conflict(f"Validation failure: Listener {listener_id} already has a default pool.")
        body = {
            **octavia_fields(world, request),
            "protocol": one_of(request, "protocol", PROTOCOLS),
            "lb_algorithm": one_of(request, "lb_algorithm", ALGORITHMS),
            "session_persistence": request.get("session_persistence"),
            "tls_enabled": bool(request.get("tls_enabled", False)),
            "healthmonitor_id": None,
            "loadbalancers": [{"id": lb_id}],
            "listeners": [{"id": listener_id}] if listener_id else [],
            "members": [],
        }
        linked(world, LOAD_BALANCERS, str(lb_id), "pools", body["id"])
        if listener is not None:
            world.add("listeners", {**listener, "default_pool_id": body["id"]})
        hold_load_balancer(world, str(lb_id))
        return body

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        refused_keys(request, POOL_UPDATABLE)
        if "lb_algorithm" in request:
            one_of(request, "lb_algorithm", ALGORITHMS)
        lb_id = self.load_balancer_of(world, body)
        mutable_load_balancer(world, lb_id)
        hold_load_balancer(world, lb_id)
        return updated(world, self.collection, body, request)

    def load_balancer_of(self, world: CloudWorld, body: Body) -> str:
        return str(body["loadbalancers"][0]["id"])

    def check_delete(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> None:
        mutable_load_balancer(world, self.load_balancer_of(world, body))

    def delete(self, world: CloudWorld, body: Body) -> None:
        removed_children(world, "members", body["members"])
        if body["healthmonitor_id"]:
            removed_children(world, "healthmonitors", [{"id": body["healthmonitor_id"]}])
        for entry in body["listeners"]:
            listener = world.inventory("listeners").get(entry["id"])
            if listener is not None and listener["default_pool_id"] == body["id"]:
                world.add("listeners", {**listener, "default_pool_id": None})
        for policy in list(world.inventory("l7policies")):
            if policy.get("redirect_pool_id") == body["id"]:
                world.add("l7policies", {**policy, "redirect_pool_id": None})
        unlinked(world, LOAD_BALANCERS, self.load_balancer_of(world, body), "pools", body["id"])
