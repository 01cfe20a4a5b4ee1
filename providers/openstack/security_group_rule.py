"""OS::Neutron::SecurityGroupRule: a Neutron rule, adopted when an identical one already exists.

Neutron refuses a second identical rule in a group (409 SecurityGroupRuleExists). After a crash,
or when the template gave the rule a description (so it carries no marker), that refusal means
the rule is already there: the create adopts the identical rule instead of retrying for ever.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, Marker, Retryable
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.neutron_resource import NeutronResourceHandler
from providers.openstack.neutron_tables import SECURITY_GROUP_RULE
from providers.openstack.security_group import RULES_PATH, rule_key


@dataclass(frozen=True)
class SecurityGroupRuleHandler:
    apis: CloudApis

    @property
    def rules(self) -> NeutronResourceHandler:
        return NeutronResourceHandler(self.apis, SECURITY_GROUP_RULE)

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        try:
            return self.rules.create(properties, marker)
        except Retryable:
            identical = self.identical_rule(properties)
            if identical is None:
                raise
            return identical

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return self.rules.update(physical_id, properties, changed)

    def delete(self, physical_id: str) -> None:
        self.rules.delete(physical_id)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return self.rules.observe(physical_ids)

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return self.rules.find_by_marker(marker)

    def identical_rule(self, properties: Mapping[str, Any]) -> LiveResource | None:
        wanted = rule_key(SECURITY_GROUP_RULE.body(properties, self.apis.names))
        group = self.apis.names.id_of("security_group", properties["security_group"])
        for rule in self.apis.network.list_all(
            RULES_PATH, "security_group_rules", {"security_group_id": group}
        ):
            if rule_key(rule) == wanted:
                return self.rules.live(rule)
        return None
