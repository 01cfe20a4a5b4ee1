"""OS::Neutron::QoSPolicy and its rules on the simulated cloud.

A policy is a tagged Neutron collection. Rules take no tags and no description: a policy holds at
most one rule of a type per direction, so a create that Neutron refuses as a duplicate adopts the
rule already there (the one a crashed create left), and there is nothing to find by marker.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, Marker
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict
from providers.simulated.heat_types.adapter import TaggedCollection
from providers.simulated.inventory import Body


class QoSPolicy(TaggedCollection):
    type_name = "OS::Neutron::QoSPolicy"
    collection = "qos_policies"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "description": "description",
        "shared": "shared",
    }

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        return {"rules": body["rules"]}


class QoSRule(TaggedCollection):
    collection = "qos_rules"
    rule_type: ClassVar[str] = ""

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        policy = self.resolver.id_of("qos_policies", str(properties.get("policy")), "QoS policy")
        request = {**self.fields(cloud, properties), "type": self.rule_type, "qos_policy_id": policy}
        try:
            body = cloud.create(self.collection, request)
        except Conflict:
            held = cloud.list(
                self.collection,
                where={
                    "qos_policy_id": policy,
                    "type": self.rule_type,
                    "direction": request.get("direction"),
                },
            )
            if not held:
                raise
            body = held[0]
        return self.live(cloud, body)

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {**super().properties_of(body), "policy": body["qos_policy_id"]}


class QoSBandwidthLimitRule(QoSRule):
    type_name = "OS::Neutron::QoSBandwidthLimitRule"
    rule_type = "bandwidth_limit"
    passthrough: ClassVar[Mapping[str, str]] = {
        "max_kbps": "max_kbps",
        "max_burst_kbps": "max_burst_kbps",
        "direction": "direction",
    }


class QoSDscpMarkingRule(QoSRule):
    type_name = "OS::Neutron::QoSDscpMarkingRule"
    rule_type = "dscp_marking"
    passthrough: ClassVar[Mapping[str, str]] = {"dscp_mark": "dscp_mark"}


class QoSMinimumBandwidthRule(QoSRule):
    type_name = "OS::Neutron::QoSMinimumBandwidthRule"
    rule_type = "minimum_bandwidth"
    passthrough: ClassVar[Mapping[str, str]] = {"min_kbps": "min_kbps", "direction": "direction"}


TYPES = (QoSPolicy, QoSBandwidthLimitRule, QoSDscpMarkingRule, QoSMinimumBandwidthRule)
