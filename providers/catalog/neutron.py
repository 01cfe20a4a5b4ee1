"""Networking types: OS::Neutron::Net, Subnet, Port, Router, RouterInterface, SecurityGroup,
SecurityGroupRule, FloatingIP and FloatingIPAssociation, as Heat's resource reference lists them.
"""

from __future__ import annotations

from providers.catalog.declaring import replacing, resource_type, updatable

NET = resource_type(
    "OS::Neutron::Net",
    [
        updatable("name", "string"),
        updatable("admin_state_up", "boolean", default=True),
        updatable("shared", "boolean", default=False),
        updatable("value_specs", "map", default={}),
        replacing("tenant_id", "string"),
        updatable("dhcp_agent_ids", "list"),
        updatable("port_security_enabled", "boolean"),
        updatable("qos_policy", "string"),
        updatable("dns_domain", "string"),
        replacing("availability_zone_hints", "list"),
        updatable("tags", "list"),
    ],
    [
        "admin_state_up",
        "l2_adjacency",
        "mtu",
        "name",
        "port_security_enabled",
        "qos_policy_id",
        "segments",
        "status",
        "subnets",
        "tenant_id",
    ],
)

SUBNET = resource_type(
    "OS::Neutron::Subnet",
    [
        replacing("network", "string", required=True, description="Network name or id."),
        replacing("cidr", "string"),
        replacing("ip_version", "integer", default=4),
        updatable("name", "string"),
        updatable("dns_nameservers", "list", default=[]),
        updatable("gateway_ip", "string"),
        updatable("enable_dhcp", "boolean", default=True),
        updatable("allocation_pools", "list"),
        updatable("host_routes", "list"),
        replacing("ipv6_address_mode", "string"),
        replacing("ipv6_ra_mode", "string"),
        replacing("subnetpool", "string"),
        replacing("prefixlen", "integer"),
        replacing("tenant_id", "string"),
        updatable("segment", "string"),
        updatable("value_specs", "map", default={}),
        updatable("tags", "list"),
    ],
    [
        "allocation_pools",
        "cidr",
        "dns_nameservers",
        "enable_dhcp",
        "gateway_ip",
        "host_routes",
        "ip_version",
        "name",
        "network_id",
        "tenant_id",
    ],
)

PORT = resource_type(
    "OS::Neutron::Port",
    [
        replacing("network", "string", required=True, description="Network name or id."),
        updatable("name", "string"),
        updatable("fixed_ips", "list"),
        updatable("security_groups", "list"),
        updatable("admin_state_up", "boolean", default=True),
        updatable("mac_address", "string"),
        updatable("device_id", "string"),
        updatable("device_owner", "string"),
        updatable("binding:vnic_type", "string", default="normal"),
        updatable("allowed_address_pairs", "list"),
        updatable("port_security_enabled", "boolean"),
        updatable("qos_policy", "string"),
        updatable("dns_name", "string"),
        updatable("value_specs", "map", default={}),
        updatable("tags", "list"),
    ],
    [
        "admin_state_up",
        "allowed_address_pairs",
        "device_id",
        "device_owner",
        "dns_assignment",
        "fixed_ips",
        "mac_address",
        "name",
        "network_id",
        "port_security_enabled",
        "qos_policy_id",
        "security_groups",
        "status",
        "subnets",
        "tenant_id",
    ],
)

ROUTER = resource_type(
    "OS::Neutron::Router",
    [
        updatable("name", "string"),
        updatable("external_gateway_info", "map"),
        updatable("admin_state_up", "boolean", default=True),
        updatable("l3_agent_ids", "list"),
        replacing("distributed", "boolean"),
        replacing("ha", "boolean"),
        updatable("value_specs", "map", default={}),
        updatable("tags", "list"),
    ],
    ["admin_state_up", "external_gateway_info", "name", "status", "tenant_id"],
)

ROUTER_INTERFACE = resource_type(
    "OS::Neutron::RouterInterface",
    [
        replacing("router", "string", required=True, description="Router name or id."),
        replacing("subnet", "string", description="Subnet name or id (this or port)."),
        replacing("port", "string", description="Port name or id (this or subnet)."),
    ],
    [],
)

SECURITY_GROUP = resource_type(
    "OS::Neutron::SecurityGroup",
    [
        updatable("name", "string"),
        updatable("description", "string"),
        updatable("rules", "list", default=[]),
    ],
    [],
)

SECURITY_GROUP_RULE = resource_type(
    "OS::Neutron::SecurityGroupRule",
    [
        replacing("security_group", "string", required=True),
        replacing("description", "string"),
        replacing("direction", "string", default="ingress"),
        replacing("ethertype", "string", default="IPv4"),
        replacing("port_range_min", "integer"),
        replacing("port_range_max", "integer"),
        replacing("protocol", "string", default="tcp"),
        replacing("remote_group", "string"),
        replacing("remote_ip_prefix", "string"),
    ],
    [],
)

FLOATING_IP = resource_type(
    "OS::Neutron::FloatingIP",
    [
        replacing("floating_network", "string", required=True, description="External network."),
        replacing("floating_subnet", "string"),
        replacing("floating_ip_address", "string"),
        updatable("port_id", "string"),
        updatable("fixed_ip_address", "string"),
        replacing("dns_name", "string"),
        replacing("dns_domain", "string"),
        replacing("value_specs", "map", default={}),
    ],
    [
        "fixed_ip_address",
        "floating_ip_address",
        "floating_network_id",
        "port_id",
        "router_id",
        "tenant_id",
    ],
)

FLOATING_IP_ASSOCIATION = resource_type(
    "OS::Neutron::FloatingIPAssociation",
    [
        updatable("floatingip_id", "string", required=True),
        updatable("port_id", "string", required=True),
        updatable("fixed_ip_address", "string"),
    ],
    [],
)

TYPES = (
    NET,
    SUBNET,
    PORT,
    ROUTER,
    ROUTER_INTERFACE,
    SECURITY_GROUP,
    SECURITY_GROUP_RULE,
    FLOATING_IP,
    FLOATING_IP_ASSOCIATION,
)
