"""How each Octavia type's Heat properties become its API body: one table per type.

| Heat type | path under `/v2` | body key | Heat property -> body key where they differ |
|---|---|---|---|
| LoadBalancer | /lbaas/loadbalancers | loadbalancer | vip_subnet, vip_network, flavor -> their `_id` |
| Listener | /lbaas/listeners | listener | loadbalancer -> loadbalancer_id, default_pool -> default_pool_id |
| Pool | /lbaas/pools | pool | listener -> listener_id, loadbalancer -> loadbalancer_id |
| PoolMember | /lbaas/pools/{pool}/members | member | subnet -> subnet_id (pool is in the path) |
| HealthMonitor | /lbaas/healthmonitors | healthmonitor | pool -> pool_id |
| L7Policy | /lbaas/l7policies | l7policy | listener -> listener_id, redirect_pool -> redirect_pool_id |
| L7Rule | /lbaas/l7policies/{l7policy}/rules | rule | (l7policy is in the path) |

Names and ids are both accepted where Heat takes either: Neutron subnets and networks resolve
through the shared lookup, Octavia objects through this service's own (`load_balancing`). Heat's
`tenant_id` is not sent: the token's project owns what it creates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from providers.openstack.name_lookup import NameLookup
from providers.openstack.neutron_table import BodyField, resolved


@dataclass(frozen=True)
class Parent:
    """Where a nested type lives: its parent's property, list path, list key and child list key."""

    property: str  # "pool"
    kind: str  # the name lookup's kind for the parent
    path: str  # "/lbaas/pools"
    collection: str  # "pools"
    children: str  # "members": the parent's list of {"id": ...} of this type


@dataclass(frozen=True)
class OctaviaTable:
    type_name: str
    segment: str  # "loadbalancers", or "members" under the parent's path
    singular: str  # the body key of one object
    fields: Mapping[str, BodyField]
    parent: Parent | None = None
    named: bool = True  # whether an unnamed resource gets Heat's stack-resource-id name
    attributes: frozenset[str] = field(default_factory=frozenset)

    def path(self, parent_id: str | None = None) -> str:
        if self.parent is None:
            return f"/lbaas/{self.segment}"
        return f"{self.parent.path}/{parent_id}/{self.segment}"


def whole_number(value: Any, names: NameLookup) -> Any:
    """Heat's `number` (a policy's position) as the integer Octavia takes."""
    return int(value)


def plain(*names: str) -> dict[str, BodyField]:
    return {name: BodyField(name) for name in names}


LOAD_BALANCER = OctaviaTable(
    "OS::Octavia::LoadBalancer",
    "loadbalancers",
    "loadbalancer",
    {
        **plain("name", "description", "admin_state_up", "vip_address", "provider", "availability_zone"),
        "vip_subnet": BodyField("vip_subnet_id", resolved("subnet")),
        "vip_network": BodyField("vip_network_id", resolved("network")),
        "flavor": BodyField("flavor_id", resolved("lb_flavor")),
    },
    attributes=frozenset(
        {
            "vip_address",
            "vip_port_id",
            "vip_subnet_id",
            "vip_network_id",
            "pools",
            "listeners",
            "flavor_id",
            "availability_zone",
            "provisioning_status",
            "operating_status",
        }
    ),
)
LISTENER = OctaviaTable(
    "OS::Octavia::Listener",
    "listeners",
    "listener",
    {
        **plain("protocol_port", "protocol", "description", "name", "admin_state_up", "connection_limit"),
        **plain("default_tls_container_ref", "sni_container_refs", "allowed_cidrs"),
        "loadbalancer": BodyField("loadbalancer_id", resolved("loadbalancer")),
        "default_pool": BodyField("default_pool_id", resolved("pool")),
    },
    attributes=frozenset({"loadbalancers", "default_pool_id", "provisioning_status", "operating_status"}),
)
POOL = OctaviaTable(
    "OS::Octavia::Pool",
    "pools",
    "pool",
    {
        **plain("admin_state_up", "description", "session_persistence", "name", "lb_algorithm", "protocol"),
        "tls_enabled": BodyField("tls_enabled"),
        "listener": BodyField("listener_id", resolved("listener")),
        "loadbalancer": BodyField("loadbalancer_id", resolved("loadbalancer")),
    },
    attributes=frozenset(
        {
            "healthmonitor_id",
            "listeners",
            "members",
            "loadbalancers",
            "provisioning_status",
            "operating_status",
        }
    ),
)
POOL_MEMBER = OctaviaTable(
    "OS::Octavia::PoolMember",
    "members",
    "member",
    {
        **plain("address", "protocol_port", "monitor_address", "monitor_port", "weight", "admin_state_up"),
        "subnet": BodyField("subnet_id", resolved("subnet")),
    },
    parent=Parent("pool", "pool", "/lbaas/pools", "pools", "members"),
    named=False,
    attributes=frozenset({"address", "provisioning_status", "operating_status"}),
)
HEALTH_MONITOR = OctaviaTable(
    "OS::Octavia::HealthMonitor",
    "healthmonitors",
    "healthmonitor",
    {
        **plain("admin_state_up", "delay", "expected_codes", "http_method", "max_retries", "timeout", "type"),
        "url_path": BodyField("url_path"),
        "pool": BodyField("pool_id", resolved("pool")),
    },
    named=False,
    attributes=frozenset({"pools", "provisioning_status", "operating_status"}),
)
L7_POLICY = OctaviaTable(
    "OS::Octavia::L7Policy",
    "l7policies",
    "l7policy",
    {
        **plain("name", "description", "admin_state_up", "action", "redirect_url"),
        "position": BodyField("position", whole_number),
        "redirect_pool": BodyField("redirect_pool_id", resolved("pool")),
        "listener": BodyField("listener_id", resolved("listener")),
    },
    attributes=frozenset({"rules", "provisioning_status", "operating_status"}),
)
L7_RULE = OctaviaTable(
    "OS::Octavia::L7Rule",
    "rules",
    "rule",
    plain("admin_state_up", "type", "compare_type", "invert", "key", "value"),
    parent=Parent("l7policy", "l7policy", "/lbaas/l7policies", "l7policies", "rules"),
    named=False,
    attributes=frozenset({"provisioning_status", "operating_status"}),
)

TABLES = (LOAD_BALANCER, LISTENER, POOL, POOL_MEMBER, HEALTH_MONITOR, L7_POLICY, L7_RULE)
