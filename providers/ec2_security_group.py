"""AWS::EC2::SecurityGroup as Heat serves it on Neutron: a security group whose rules are written
the CloudFormation way. Both providers translate it to and from OS::Neutron::SecurityGroup.

Heat's rules: `IpProtocol`, `FromPort` and `ToPort` (text or numbers; -1 is any), `CidrIp`, and
`SourceSecurityGroupId` / `SourceSecurityGroupName` (ingress) or `DestinationSecurityGroupId`
(egress) for a remote group. As for the native group, Neutron's default egress rules stay unless
the template lists egress rules of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from providers.interface import LiveResource

TYPE_NAME = "AWS::EC2::SecurityGroup"
ANY = {"-1", -1}
REMOTE_GROUP_KEYS = {
    "ingress": ("SourceSecurityGroupId", "SourceSecurityGroupName"),
    "egress": ("DestinationSecurityGroupId",),
}
RULE_LISTS = {"ingress": "SecurityGroupIngress", "egress": "SecurityGroupEgress"}


def neutron_properties(properties: Mapping[str, Any]) -> dict[str, Any]:
    """The OS::Neutron::SecurityGroup properties an AWS::EC2::SecurityGroup stands for."""
    rules = [
        _neutron_rule(direction, rule)
        for direction, key in RULE_LISTS.items()
        for rule in properties.get(key) or ()
    ]
    return {"description": properties.get("GroupDescription"), "rules": rules}


def aws_view(live: LiveResource) -> LiveResource:
    """A live Neutron security group read back under the AWS type's property names."""
    rules: dict[str, list[dict[str, Any]]] = {"ingress": [], "egress": []}
    for rule in live.properties.get("rules") or ():
        rules.setdefault(str(rule.get("direction")), []).append(_aws_rule(rule))
    properties = {
        "GroupDescription": live.properties.get("description"),
        "SecurityGroupIngress": rules["ingress"],
        "SecurityGroupEgress": rules["egress"],
    }
    return dataclasses.replace(live, type=TYPE_NAME, properties=properties)


def _neutron_rule(direction: str, rule: Mapping[str, Any]) -> dict[str, Any]:
    protocol = rule.get("IpProtocol")
    neutron: dict[str, Any] = {
        "direction": direction,
        "ethertype": "IPv4",
        "protocol": None if protocol in ANY else (str(protocol) if protocol is not None else None),
    }
    for aws_key, neutron_key in (("FromPort", "port_range_min"), ("ToPort", "port_range_max")):
        value = rule.get(aws_key)
        if value is not None and value not in ANY:
            neutron[neutron_key] = int(value)
    if rule.get("CidrIp"):
        neutron["remote_ip_prefix"] = rule["CidrIp"]
    group = next((rule[key] for key in REMOTE_GROUP_KEYS[direction] if rule.get(key)), None)
    if group:
        neutron["remote_group_id"] = group
    return neutron


def _aws_rule(rule: Mapping[str, Any]) -> dict[str, Any]:
    aws: dict[str, Any] = {"IpProtocol": rule.get("protocol") or "-1"}
    if rule.get("port_range_min") is not None:
        aws["FromPort"] = rule["port_range_min"]
    if rule.get("port_range_max") is not None:
        aws["ToPort"] = rule["port_range_max"]
    if rule.get("remote_ip_prefix"):
        aws["CidrIp"] = rule["remote_ip_prefix"]
    if rule.get("remote_group_id"):
        aws[
            "SourceSecurityGroupId" if rule.get("direction") == "ingress" else "DestinationSecurityGroupId"
        ] = rule["remote_group_id"]
    return aws
