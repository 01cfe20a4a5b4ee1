"""The label values cloud calls are counted under: the OpenStack service a resource type belongs to
and the outcome of the call, in words a person reads on a dashboard ("compute", "conflict")."""

from __future__ import annotations

from collections.abc import Mapping

from providers.interface import NotFound, Permanent, Retryable

# The namespace of a Heat resource type -> the service its calls go to (the catalog's type names).
SERVICE_OF_NAMESPACE: Mapping[str, str] = {
    "Nova": "compute",
    "Neutron": "network",
    "Cinder": "volume",
    "Glance": "image",
    "Swift": "object-store",
    "Keystone": "identity",
    "Octavia": "load-balancer",
    "Designate": "dns",
    "Barbican": "key-manager",
    "Magnum": "container-infra",
    "Monasca": "monitoring",
    "Heat": "orchestration",
}
OK = "ok"


def service_of(type_name: str) -> str:
    """`OS::Nova::Server` -> `compute`; a namespace not listed is named in lower case, a type not
    named `OS::Service::Type` is `other`."""
    parts = type_name.split("::")
    if len(parts) != len(("OS", "Service", "Type")):
        return "other"
    return SERVICE_OF_NAMESPACE.get(parts[1], parts[1].lower())


def outcome_of(error: BaseException) -> str:
    """How a call that raised `error` ended."""
    if isinstance(error, Retryable):
        return "conflict" if error.conflict else "unavailable"
    if isinstance(error, Permanent):
        return "refused"
    if isinstance(error, NotFound):
        return "not_found"
    return "error"
