"""Neutron's QoS: policies, and the bandwidth-limit, DSCP-marking and minimum-bandwidth rules in them.

A policy shows its rules (`rules`, each with its `type`), as Neutron does; the rules themselves are
their own collection, kept in step with the policy that holds them. A policy holds at most one rule
of a type per direction (one DSCP rule in all), a DSCP mark is one Neutron allows, and a policy a
network or port uses cannot be deleted; each is refused with Neutron's message. Deleting a policy
deletes its rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.network import Neutron, merged, standard_fields
from providers.simulated.world import CloudWorld

# rule type -> (the fields it takes, those it needs)
RULE_TYPES: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "bandwidth_limit": (("max_kbps", "max_burst_kbps", "direction"), ("max_kbps",)),
    "dscp_marking": (("dscp_mark",), ("dscp_mark",)),
    "minimum_bandwidth": (("min_kbps", "direction"), ("min_kbps",)),
}
DSCP_MARKS = frozenset({0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 46, 48, 56})
DIRECTIONS = ("egress", "ingress")


class QosPolicies(Neutron):
    collection = "qos_policies"
    read_only = frozenset({"rules"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        return {
            **standard_fields(world, request),
            "shared": bool(request.get("shared", False)),
            "is_default": bool(request.get("is_default", False)),
            "rules": [],
        }

    def delete(self, world: CloudWorld, body: Body) -> None:
        for collection, what in (("networks", "network"), ("ports", "port")):
            for item in world.inventory(collection):
                if item.get("qos_policy_id") == body["id"]:
                    raise Conflict(f"QoS Policy {body['id']} is used by {what} {item['id']}.")
        rules = world.inventory("qos_rules")
        for rule in body["rules"]:
            if rules.get(rule["id"]) is not None:
                rules.pop(rule["id"])


class QosRules(Neutron):
    """Every rule of every policy; the HTTP face serves them under their policy and type."""

    collection = "qos_rules"
    read_only = frozenset({"type", "qos_policy_id"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        policy = world.require("qos_policies", str(request.get("qos_policy_id")), "QoS policy")
        kind = str(request.get("type"))
        fields, needed = RULE_TYPES[kind]
        unknown = sorted(set(request) - {*fields, "type", "qos_policy_id"})
        if unknown:
            raise BadRequest(f"Unrecognized attribute(s) '{', '.join(unknown)}'")
        missing = [name for name in needed if request.get(name) is None]
        if missing:
            raise BadRequest(f"Failed to parse request. Required attribute '{missing[0]}' not specified")
        rule = {"id": world.new_id(), "type": kind, "qos_policy_id": policy["id"], **_defaults(kind)}
        rule = _checked(kind, {**rule, **{name: request[name] for name in fields if name in request}})
        for held in policy["rules"]:
            if held["type"] == kind and held.get("direction") == rule.get("direction"):
                raise Conflict(f"Rule {kind} already exists in QoS Policy {policy['id']}.")
        world.add("qos_policies", {**policy, "rules": [*policy["rules"], rule]})
        return rule

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        fields = RULE_TYPES[body["type"]][0]
        unknown = sorted(set(request) - set(fields))
        if unknown:
            raise BadRequest(f"Unrecognized attribute(s) '{', '.join(unknown)}'")
        updated = _checked(body["type"], merged(world, body, request, self.read_only))
        updated = {
            key: value for key, value in updated.items() if key not in ("updated_at", "revision_number")
        }
        policy = world.require("qos_policies", body["qos_policy_id"])
        rules = [updated if rule["id"] == body["id"] else rule for rule in policy["rules"]]
        world.add("qos_policies", {**policy, "rules": rules})
        return updated

    def delete(self, world: CloudWorld, body: Body) -> None:
        policy = world.inventory("qos_policies").get(body["qos_policy_id"])
        if policy is not None:
            rules = [rule for rule in policy["rules"] if rule["id"] != body["id"]]
            world.add("qos_policies", {**policy, "rules": rules})


def _defaults(kind: str) -> Body:
    if kind == "bandwidth_limit":
        return {"max_burst_kbps": 0, "direction": "egress"}
    if kind == "minimum_bandwidth":
        return {"direction": "egress"}
    return {}


def _checked(kind: str, rule: Body) -> Body:
    for name in ("max_kbps", "max_burst_kbps", "min_kbps"):
        value = rule.get(name)
        if name in rule and (not isinstance(value, int) or value < 0):
            raise BadRequest(f"Invalid input for {name}. Reason: '{value}' is not an integer of 0 or more.")
    if "direction" in rule and rule["direction"] not in DIRECTIONS:
        raise BadRequest(
            f"Invalid input for direction. Reason: {rule['direction']} is not in valid_values "
            f"{list(DIRECTIONS)}."
        )
    if kind == "dscp_marking" and rule.get("dscp_mark") not in DSCP_MARKS:
        raise BadRequest(
            f"Invalid input for dscp_mark. Reason: {rule.get('dscp_mark')} is not in valid_values "
            f"{sorted(DSCP_MARKS)}."
        )
    return rule


BEHAVIOURS = (QosPolicies(), QosRules())
