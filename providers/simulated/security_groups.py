"""Neutron security groups (created with Neutron's two default egress rules) and their rules
(an identical rule is refused with 409, as Neutron does).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.network import Neutron, standard_fields
from providers.simulated.world import CloudWorld


class SecurityGroups(Neutron):
    collection = "security_groups"
    read_only = frozenset({"security_group_rules"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        body = {**standard_fields(world, request), "stateful": request.get("stateful", True)}
        rules = [
            SecurityGroupRules().rule_body(world, body, {"direction": "egress", "ethertype": ethertype})
            for ethertype in ("IPv4", "IPv6")
        ]
        for rule in rules:
            world.add("security_group_rules", rule)
        return {**body, "security_group_rules": rules}

    def delete(self, world: CloudWorld, body: Body) -> None:
        for port in world.inventory("ports"):
            if body["id"] in port["security_groups"]:
                raise Conflict(f"Security Group {body['id']} in use.")
        for rule in body["security_group_rules"]:
            world.inventory("security_group_rules").pop(rule["id"])


RULE_FIELDS = (
    "direction",
    "ethertype",
    "protocol",
    "port_range_min",
    "port_range_max",
    "remote_ip_prefix",
    "remote_group_id",
)


class SecurityGroupRules(Neutron):
    collection = "security_group_rules"

    def rule_body(self, world: CloudWorld, group: Body, request: Mapping[str, Any]) -> Body:
        fields = standard_fields(world, request)
        del fields["name"], fields["tags"]
        return {
            **fields,
            "security_group_id": group["id"],
            "direction": request.get("direction", "ingress"),
            "ethertype": request.get("ethertype", "IPv4"),
            "protocol": request.get("protocol"),
            "port_range_min": request.get("port_range_min"),
            "port_range_max": request.get("port_range_max"),
            "remote_ip_prefix": request.get("remote_ip_prefix"),
            "remote_group_id": request.get("remote_group_id"),
        }

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        group = world.require("security_groups", str(request.get("security_group_id")), "Security group")
        if request.get("direction") not in ("ingress", "egress"):
            raise BadRequest(f"Invalid input for direction: {request.get('direction')!r}.")
        rule = self.rule_body(world, group, request)
        for existing in group["security_group_rules"]:
            if all(existing.get(key) == rule.get(key) for key in RULE_FIELDS):
                raise Conflict(f"Security group rule already exists. Rule id is {existing['id']}.")
        world.add(
            "security_groups", {**group, "security_group_rules": [*group["security_group_rules"], rule]}
        )
        return rule

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        raise BadRequest("Security group rules cannot be updated; replace the rule.")

    def delete(self, world: CloudWorld, body: Body) -> None:
        group = world.inventory("security_groups").get(body["security_group_id"])
        if group is not None:
            rules = [rule for rule in group["security_group_rules"] if rule["id"] != body["id"]]
            world.add("security_groups", {**group, "security_group_rules": rules})


BEHAVIOURS = (SecurityGroups(), SecurityGroupRules())
