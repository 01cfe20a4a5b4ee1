"""The Heat property -> Neutron body tables of OS::Neutron::SubnetPool, AddressScope and ProviderNet.

Address scopes take no tags and have no description: the marker is the scope's `name` when the
template gives none (Heat too names an unnamed scope after the resource). A provider network is a
network whose segment is given as Neutron's `provider:*` attributes.
"""

from __future__ import annotations

from typing import Any

from providers.openstack.name_lookup import NameLookup
from providers.openstack.neutron_table import BodyField, NeutronTable, resolved
from providers.openstack.neutron_tables import same


def segmentation_id(value: Any, names: NameLookup) -> Any:
    """Heat takes the segmentation id as a string; Neutron keeps an integer."""
    return int(value) if isinstance(value, str) and value.isdigit() else value


SUBNET_POOL = NeutronTable(
    "OS::Neutron::SubnetPool",
    "subnetpools",
    "subnetpool",
    {
        **same("name", "prefixes", "default_quota", "default_prefixlen", "min_prefixlen", "max_prefixlen"),
        **same("is_default", "tenant_id", "shared"),
        "address_scope": BodyField("address_scope_id", resolved("address_scope")),
    },
)

ADDRESS_SCOPE = NeutronTable(
    "OS::Neutron::AddressScope",
    "address_scopes",
    "address_scope",
    same("name", "shared", "tenant_id", "ip_version"),
    path_segment="address-scopes",
    tagged=False,  # Neutron's tag extension does not cover address scopes
    marker_field="name",
)

PROVIDER_NET = NeutronTable(
    "OS::Neutron::ProviderNet",
    "networks",
    "network",
    {
        **same("name", "shared", "port_security_enabled", "admin_state_up", "dns_domain"),
        **same("availability_zone_hints"),
        "network_type": BodyField("provider:network_type"),
        "physical_network": BodyField("provider:physical_network"),
        "segmentation_id": BodyField("provider:segmentation_id", segmentation_id),
        "router_external": BodyField("router:external"),
    },
    attributes=frozenset({"status", "subnets", "segments"}),
)
