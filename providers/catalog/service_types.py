"""Which cloud service a resource type needs, by the namespace of its name: a data table.

A type is served only where the cloud's Keystone catalog lists one of the service types given for
its namespace (several where a service is known by more than one name). Types of a namespace not
listed need no cloud service (the native OS::Heat::* types) or none we know of; adding a service
means adding its namespace here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

SERVICE_TYPES_BY_NAMESPACE: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "OS::Nova": ("compute",),
        "OS::Neutron": ("network",),
        "OS::Cinder": ("block-storage", "volumev3", "volumev2", "volume"),
        "OS::Glance": ("image",),
        "OS::Octavia": ("load-balancer",),
        "OS::Swift": ("object-store",),
        "OS::Aodh": ("alarming",),
        "OS::Keystone": ("identity",),
        "OS::Designate": ("dns",),
        "OS::Barbican": ("key-manager",),
        "OS::Zaqar": ("messaging",),
        "OS::Manila": ("shared-file-system", "sharev2"),
        "OS::Trove": ("database",),
        "OS::Sahara": ("data-processing",),
        "OS::Magnum": ("container-infrastructure-management", "container-infra"),
        "OS::Mistral": ("workflow", "workflowv2"),
        "OS::Senlin": ("clustering",),
        "OS::Zun": ("container", "application-container"),
        "OS::Blazar": ("reservation",),
        "OS::Monasca": ("monitoring",),
        "OS::Vitrage": ("rca",),
        "OS::Ironic": ("baremetal",),
    }
)


def namespace_of(type_name: str) -> str:
    """`OS::Octavia` of `OS::Octavia::LoadBalancer`."""
    return "::".join(type_name.split("::")[:2])


def services_needed(type_name: str) -> tuple[str, ...]:
    """The service types any one of which serves `type_name` (empty: it needs none we know of)."""
    return SERVICE_TYPES_BY_NAMESPACE.get(namespace_of(type_name), ())
