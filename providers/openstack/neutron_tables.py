"""The Heat property -> Neutron body tables for the tagged Neutron types.

Names of networks, subnets, security groups and routers are resolved to ids through the shared
name lookup. Properties Heat applies through other APIs (dhcp_agent_ids, l3_agent_ids) are not
sent: this provider does not schedule agents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.openstack.name_lookup import NameLookup
from providers.openstack.neutron_table import BodyField, NeutronTable, each_resolved, resolved


def fixed_ips(value: Any, names: NameLookup) -> list[dict[str, Any]]:
    """Heat's fixed_ips entries ({subnet | subnet_id, ip_address}) as Neutron's."""
    entries = []
    for entry in value or []:
        neutron: dict[str, Any] = {}
        subnet = entry.get("subnet") or entry.get("subnet_id")
        if subnet:
            neutron["subnet_id"] = names.id_of("subnet", subnet)
        if entry.get("ip_address"):
            neutron["ip_address"] = entry["ip_address"]
        entries.append(neutron)
    return entries


def gateway_info(value: Any, names: NameLookup) -> dict[str, Any]:
    """Heat's external_gateway_info {network, enable_snat, external_fixed_ips} as Neutron's."""
    info: Mapping[str, Any] = value or {}
    neutron: dict[str, Any] = {}
    if info.get("network"):
        neutron["network_id"] = names.id_of("network", info["network"])
    if info.get("enable_snat") is not None:
        neutron["enable_snat"] = info["enable_snat"]
    if info.get("external_fixed_ips"):
        neutron["external_fixed_ips"] = fixed_ips(info["external_fixed_ips"], names)
    return neutron


def same(*names: str) -> dict[str, BodyField]:
    return {name: BodyField(name) for name in names}


NET = NeutronTable(
    "OS::Neutron::Net",
    "networks",
    "network",
    {
        **same("name", "admin_state_up", "shared", "port_security_enabled", "dns_domain", "tenant_id"),
        **same("availability_zone_hints"),
        "qos_policy": BodyField("qos_policy_id", resolved("qos_policy")),
    },
    attributes=frozenset(
        {"admin_state_up", "l2_adjacency", "mtu", "name", "port_security_enabled", "status", "subnets"}
    ),
)

SUBNET = NeutronTable(
    "OS::Neutron::Subnet",
    "subnets",
    "subnet",
    {
        "network": BodyField("network_id", resolved("network")),
        **same("cidr", "ip_version", "name", "dns_nameservers", "gateway_ip", "enable_dhcp"),
        **same("allocation_pools", "host_routes", "ipv6_address_mode", "ipv6_ra_mode", "prefixlen"),
        **same("tenant_id"),
        "subnetpool": BodyField("subnetpool_id", resolved("subnetpool")),
        "segment": BodyField("segment_id"),
    },
    attributes=frozenset(
        {"allocation_pools", "cidr", "dns_nameservers", "enable_dhcp", "gateway_ip", "host_routes"}
        | {"ip_version", "name", "network_id", "tenant_id"}
    ),
)

PORT = NeutronTable(
    "OS::Neutron::Port",
    "ports",
    "port",
    {
        "network": BodyField("network_id", resolved("network")),
        "fixed_ips": BodyField("fixed_ips", fixed_ips),
        "security_groups": BodyField("security_groups", each_resolved("security_group")),
        **same("name", "admin_state_up", "mac_address", "device_id", "device_owner", "binding:vnic_type"),
        **same("allowed_address_pairs", "port_security_enabled", "dns_name"),
        "qos_policy": BodyField("qos_policy_id", resolved("qos_policy")),
    },
    attributes=frozenset(
        {"admin_state_up", "allowed_address_pairs", "device_id", "device_owner", "dns_assignment"}
        | {"fixed_ips", "mac_address", "name", "network_id", "port_security_enabled", "qos_policy_id"}
        | {"security_groups", "status", "tenant_id"}
    ),
)

ROUTER = NeutronTable(
    "OS::Neutron::Router",
    "routers",
    "router",
    {
        "external_gateway_info": BodyField("external_gateway_info", gateway_info),
        **same("name", "admin_state_up", "distributed", "ha"),
    },
    attributes=frozenset({"admin_state_up", "external_gateway_info", "name", "status", "tenant_id"}),
)

SECURITY_GROUP = NeutronTable(
    "OS::Neutron::SecurityGroup",
    "security_groups",
    "security_group",
    same("name", "description"),
    path_segment="security-groups",
)

SECURITY_GROUP_RULE = NeutronTable(
    "OS::Neutron::SecurityGroupRule",
    "security_group_rules",
    "security_group_rule",
    {
        "security_group": BodyField("security_group_id", resolved("security_group")),
        "remote_group": BodyField("remote_group_id", resolved("security_group")),
        **same("description", "direction", "ethertype", "port_range_min", "port_range_max", "protocol"),
        **same("remote_ip_prefix"),
    },
    path_segment="security-group-rules",
    tagged=False,  # Neutron's tag extension does not cover rules
    marker_field="description",
)

FLOATING_IP = NeutronTable(
    "OS::Neutron::FloatingIP",
    "floatingips",
    "floatingip",
    {
        "floating_network": BodyField("floating_network_id", resolved("network")),
        "floating_subnet": BodyField("subnet_id", resolved("subnet")),
        **same("floating_ip_address", "port_id", "fixed_ip_address", "dns_name", "dns_domain"),
    },
    attributes=frozenset(
        {
            "fixed_ip_address",
            "floating_ip_address",
            "floating_network_id",
            "port_id",
            "router_id",
            "tenant_id",
        }
    ),
)
