"""Octavia's L7 policies (on a listener) and their rules.

A policy's action decides what it needs: REDIRECT_TO_POOL a pool of the same load balancer,
REDIRECT_TO_URL a URL, REJECT neither (400 otherwise). A policy without a position goes last. A
rule of type HEADER or COOKIE needs a `key`. The policy a rule belongs to is kept in the rule's
internal `_l7policy_id`, since Octavia reaches rules only through their policy's URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body
from providers.simulated.lb_lifecycle import (
    OCTAVIA_BUILDING,
    OCTAVIA_QUOTA_STATUS,
    hold_load_balancer,
    linked,
    mutable_load_balancer,
    removed_children,
    unlinked,
    updated,
)
from providers.simulated.lb_listeners import mandatory, one_of, pool_on
from providers.simulated.load_balancers import octavia_fields, refused_keys
from providers.simulated.world import Building, CloudWorld

ACTIONS = frozenset({"REJECT", "REDIRECT_TO_POOL", "REDIRECT_TO_URL", "REDIRECT_PREFIX"})
RULE_TYPES = frozenset(
    {
        "HOST_NAME",
        "PATH",
        "FILE_TYPE",
        "HEADER",
        "COOKIE",
        "SSL_CONN_HAS_CERT",
        "SSL_VERIFY_RESULT",
        "SSL_DN_FIELD",
    }
)
COMPARE_TYPES = frozenset({"REGEX", "STARTS_WITH", "ENDS_WITH", "CONTAINS", "EQUAL_TO"})
POLICY_UPDATABLE = frozenset(
    {
        "name",
        "description",
        "admin_state_up",
        "action",
        "redirect_pool_id",
        "redirect_url",
        "redirect_prefix",
        "redirect_http_code",
        "position",
        "tags",
    }
)
RULE_UPDATABLE = frozenset({"admin_state_up", "type", "compare_type", "invert", "key", "value", "tags"})


def listener_load_balancer(world: CloudWorld, listener_id: str) -> str:
    listener = world.require("listeners", listener_id, "Listener")
    return str(listener["loadbalancers"][0]["id"])


def checked_action(world: CloudWorld, policy: Mapping[str, Any], lb_id: str) -> None:
    """The redirect a policy's action needs, present and valid; the others absent."""
    action = one_of(policy, "action", ACTIONS)
    pool, url = policy.get("redirect_pool_id"), policy.get("redirect_url")
    if action == "REDIRECT_TO_POOL":
        if not pool:
            raise BadRequest("Validation failure: redirect_pool_id is required for action REDIRECT_TO_POOL.")
        pool_on(world, str(pool), lb_id)
    if action == "REDIRECT_TO_URL" and not url:
        raise BadRequest("Validation failure: redirect_url is required for action REDIRECT_TO_URL.")
    if action == "REJECT" and (pool or url):
        raise BadRequest("Validation failure: action REJECT takes no redirect_pool_id or redirect_url.")


class L7Policies:
    collection = "l7policies"
    quota_status = OCTAVIA_QUOTA_STATUS
    building: Building | None = OCTAVIA_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        listener_id = str(mandatory(request, "listener_id"))
        lb_id = listener_load_balancer(world, listener_id)
        mutable_load_balancer(world, lb_id)
        checked_action(world, request, lb_id)
        listener = world.require("listeners", listener_id, "Listener")
        body = {
            **octavia_fields(world, request),
            "action": request["action"],
            "listener_id": listener_id,
            "redirect_pool_id": request.get("redirect_pool_id"),
            "redirect_url": request.get("redirect_url"),
            "redirect_prefix": request.get("redirect_prefix"),
            "redirect_http_code": request.get("redirect_http_code"),
            "position": request.get("position") or len(listener["l7policies"]) + 1,
            "rules": [],
        }
        linked(world, "listeners", listener_id, "l7policies", body["id"])
        hold_load_balancer(world, lb_id)
        return body

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        refused_keys(request, POLICY_UPDATABLE)
        lb_id = self.load_balancer_of(world, body)
        mutable_load_balancer(world, lb_id)
        checked_action(world, {**body, **request}, lb_id)
        hold_load_balancer(world, lb_id)
        return updated(world, self.collection, body, request)

    def load_balancer_of(self, world: CloudWorld, body: Body) -> str:
        return listener_load_balancer(world, body["listener_id"])

    def check_delete(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> None:
        mutable_load_balancer(world, self.load_balancer_of(world, body))

    def delete(self, world: CloudWorld, body: Body) -> None:
        removed_children(world, "l7rules", body["rules"])
        unlinked(world, "listeners", body["listener_id"], "l7policies", body["id"])


class L7Rules:
    collection = "l7rules"
    quota_status = OCTAVIA_QUOTA_STATUS
    building: Building | None = OCTAVIA_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        policy_id = str(mandatory(request, "l7policy_id"))
        policy = world.require("l7policies", policy_id, "L7 Policy")
        lb_id = listener_load_balancer(world, policy["listener_id"])
        mutable_load_balancer(world, lb_id)
        kind = one_of(request, "type", RULE_TYPES)
        if kind in ("HEADER", "COOKIE") and not request.get("key"):
            raise BadRequest(f"Validation failure: key is required for rules of type {kind}.")
        body = {
            **octavia_fields(world, request),
            "type": kind,
            "compare_type": one_of(request, "compare_type", COMPARE_TYPES),
            "key": request.get("key"),
            "value": mandatory(request, "value"),
            "invert": bool(request.get("invert", False)),
            "_l7policy_id": policy_id,
        }
        del body["name"], body["description"]  # rules carry neither
        linked(world, "l7policies", policy_id, "rules", body["id"])
        hold_load_balancer(world, lb_id)
        return body

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        refused_keys(request, RULE_UPDATABLE)
        lb_id = self.load_balancer_of(world, body)
        mutable_load_balancer(world, lb_id)
        hold_load_balancer(world, lb_id)
        return updated(world, self.collection, body, request)

    def load_balancer_of(self, world: CloudWorld, body: Body) -> str:
        policy = world.require("l7policies", body["_l7policy_id"], "L7 Policy")
        return listener_load_balancer(world, policy["listener_id"])

    def check_delete(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> None:
        mutable_load_balancer(world, self.load_balancer_of(world, body))

    def delete(self, world: CloudWorld, body: Body) -> None:
        unlinked(world, "l7policies", body["_l7policy_id"], "rules", body["id"])
