"""OS::Neutron::QoSPolicy (a tagged Neutron resource) and its bandwidth-limit, DSCP-marking and
minimum-bandwidth rules, served under `/qos/policies/{policy_id}/{type}_rules`.

Rules take no tags and no description, and a policy holds at most one rule of a type per
direction: a create Neutron refuses as a duplicate (409) adopts the rule already there, which is
how a create repeated after a crash stays exactly once; there is nothing to find by marker. A
rule's physical id is its own id, as Heat records it; its policy is read from the policies list,
which shows every policy's rules, so one paged list observes every rule of the project.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Retryable
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.neutron_table import NeutronTable
from providers.openstack.neutron_tables import same

QOS_POLICY = NeutronTable(
    "OS::Neutron::QoSPolicy",
    "policies",
    "policy",
    same("name", "description", "shared", "tenant_id"),
    path_segment="qos/policies",
    attributes=frozenset({"rules"}),
)

# Heat type -> (Neutron rule type, the properties sent as they are)
RULE_TYPES: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "OS::Neutron::QoSBandwidthLimitRule": ("bandwidth_limit", ("max_kbps", "max_burst_kbps", "direction")),
    "OS::Neutron::QoSDscpMarkingRule": ("dscp_marking", ("dscp_mark",)),
    "OS::Neutron::QoSMinimumBandwidthRule": ("minimum_bandwidth", ("min_kbps", "direction")),
}


@dataclass(frozen=True)
class QoSRuleHandler:
    apis: CloudApis
    type_name: str

    @property
    def rule_type(self) -> str:
        return RULE_TYPES[self.type_name][0]

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        policy = self.apis.names.id_of("qos_policy", str(properties["policy"]))
        body = self._body(properties, RULE_TYPES[self.type_name][1])
        try:
            rule = self.apis.network.post(self._path(policy), {f"{self.rule_type}_rule": body})
        except Retryable as error:
            held = self._held(policy, body.get("direction")) if error.conflict else None
            if held is None:
                raise
            return self._live(held, policy)
        return self._live(rule[f"{self.rule_type}_rule"], policy)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        policy = self.apis.names.id_of("qos_policy", str(properties["policy"]))
        body = self._body(
            properties, tuple(name for name in RULE_TYPES[self.type_name][1] if name in changed)
        )
        path = f"{self._path(policy)}/{physical_id}"
        key = f"{self.rule_type}_rule"
        rule = self.apis.network.put(path, {key: body})[key] if body else self.apis.network.get(path)[key]
        return self._live(rule, policy)

    def delete(self, physical_id: str) -> None:
        found = self.observe([physical_id]).get(physical_id)
        if found is None:
            raise NotFound(f"QoS rule {physical_id} could not be found")
        self.apis.network.delete(f"{self._path(found.properties['policy'])}/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        return {
            rule["id"]: self._live(rule, policy) for policy, rule in self._rules() if rule["id"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None

    def _rules(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for policy in self.apis.network.list_all("/qos/policies", "policies", {"fields": ["id", "rules"]}):
            for rule in policy.get("rules") or []:
                if rule.get("type") == self.rule_type:
                    yield policy["id"], rule

    def _held(self, policy: str, direction: Any) -> dict[str, Any] | None:
        key = f"{self.rule_type}_rules"
        for rule in self.apis.network.get(self._path(policy)).get(key) or []:
            if rule.get("direction") == direction:
                return dict(rule)
        return None

    def _path(self, policy: str) -> str:
        return f"/qos/policies/{policy}/{self.rule_type}_rules"

    @staticmethod
    def _body(properties: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
        return {name: properties[name] for name in names if properties.get(name) is not None}

    def _live(self, rule: Mapping[str, Any], policy: str) -> LiveResource:
        properties = {name: rule.get(name) for name in RULE_TYPES[self.type_name][1]}
        return LiveResource(
            physical_id=str(rule["id"]),
            type=self.type_name,
            status=LiveStatus.READY,
            properties={**properties, "policy": policy},
            attributes={"show": dict(rule)},
        )
