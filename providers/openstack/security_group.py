"""OS::Neutron::SecurityGroup: the group itself is a tagged Neutron resource; its `rules` property
becomes security group rules created, and on update added or removed, one call per rule.

Neutron gives every new group two egress rules (IPv4 and IPv6, anywhere). As Heat does, they are
left alone unless the template lists egress rules of its own, which then replace them.

The live group's `rules` are the rules Neutron embeds in it, in a canonical order, so a rule deleted
or added behind the engine's back is drift of the group like any other property. Rules with a
description belong to someone else (Heat's `rules` entries cannot have one; an
OS::Neutron::SecurityGroupRule resource's rule carries its own description or its marker): the group
neither counts nor removes them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, Marker
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.neutron_resource import NeutronResourceHandler
from providers.openstack.neutron_tables import SECURITY_GROUP

RULES_PATH = "/security-group-rules"
RULE_KEYS = ("direction", "ethertype", "protocol", "port_range_min", "port_range_max", "remote_ip_prefix")

RuleKey = tuple[Any, ...]


@dataclass(frozen=True)
class SecurityGroupHandler:
    apis: CloudApis

    @property
    def group(self) -> NeutronResourceHandler:
        return NeutronResourceHandler(self.apis, SECURITY_GROUP)

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        live = self.group.create(properties, marker)
        self.converge_rules(live.physical_id, properties.get("rules") or [])
        return self.reread(live.physical_id)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        live = self.group.update(physical_id, properties, changed - {"rules"})
        if "rules" not in changed:
            return with_rules(live)
        self.converge_rules(physical_id, properties.get("rules") or [])
        return self.reread(physical_id)

    def reread(self, physical_id: str) -> LiveResource:
        """The group as it is once its rules were made: the reference drift is measured from."""
        path = f"{SECURITY_GROUP.path}/{physical_id}"
        return with_rules(self.group.live(self.apis.network.get(path)[SECURITY_GROUP.singular]))

    def delete(self, physical_id: str) -> None:
        self.group.delete(physical_id)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {key: with_rules(live) for key, live in self.group.observe(physical_ids).items()}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return self.group.find_by_marker(marker)

    def converge_rules(self, group_id: str, rules: list[Mapping[str, Any]]) -> None:
        desired = {rule_key(self.neutron_rule(group_id, rule)): rule for rule in rules}
        replaces_egress = any(rule.get("direction") == "egress" for rule in rules)
        existing = self.apis.network.list_all(
            RULES_PATH, "security_group_rules", {"security_group_id": group_id}
        )
        for live_rule in list(existing):
            key = rule_key(live_rule)
            if owned_elsewhere(live_rule):
                continue  # an OS::Neutron::SecurityGroupRule resource's, not this group's
            if key in desired:
                del desired[key]
            elif live_rule.get("direction") != "egress" or replaces_egress:
                self.apis.network.delete(f"{RULES_PATH}/{live_rule['id']}")
        for rule in desired.values():
            self.apis.network.post(RULES_PATH, {"security_group_rule": self.neutron_rule(group_id, rule)})

    def neutron_rule(self, group_id: str, rule: Mapping[str, Any]) -> dict[str, Any]:
        """A Heat rule entry as Neutron's body; Heat's defaults: ingress, IPv4, remote by prefix."""
        body: dict[str, Any] = {
            "security_group_id": group_id,
            "direction": rule.get("direction") or "ingress",
            "ethertype": rule.get("ethertype") or "IPv4",
        }
        for key in ("protocol", "port_range_min", "port_range_max", "remote_ip_prefix"):
            if rule.get(key) is not None:
                body[key] = rule[key]
        if rule.get("remote_mode") == "remote_group_id":
            remote = rule.get("remote_group_id")
            body["remote_group_id"] = self.apis.names.id_of("security_group", remote) if remote else group_id
            body.pop("remote_ip_prefix", None)
        return body


def with_rules(live: LiveResource) -> LiveResource:
    """`live` with the group's rules as a property, read from the body Neutron embeds them in."""
    body = live.attributes.get("show") or {}
    listed = [rule for rule in body.get("security_group_rules") or () if not owned_elsewhere(rule)]
    rules = sorted(
        ({key: rule.get(key) for key in (*RULE_KEYS, "remote_group_id")} for rule in listed),
        key=lambda rule: tuple(str(value) for value in rule.values()),
    )
    return dataclasses.replace(live, properties={**live.properties, "rules": rules})


def owned_elsewhere(rule: Mapping[str, Any]) -> bool:
    """A rule with a description is not the group's own: Heat's `rules` entries have no description,
    while an OS::Neutron::SecurityGroupRule resource's rule carries its own or its marker."""
    return bool(rule.get("description"))


def rule_key(rule: Mapping[str, Any]) -> RuleKey:
    return (*(rule.get(key) for key in RULE_KEYS), rule.get("remote_group_id"))
