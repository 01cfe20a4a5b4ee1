"""The services one cloud offers this provider, and the shared name lookup over them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from providers.openstack.json_api import JsonApi
from providers.openstack.name_lookup import NameLookup
from providers.openstack.network_extensions import NetworkExtensions

# Nova 2.52 accepts tags in the create body (one request per server) and filters lists by tag;
# 2.54 lets a rebuild change the key pair. Every server call speaks this one version.
COMPUTE_MICROVERSION = "2.54"
# Cinder 3.0 is the v3 base; metadata list filters need nothing newer.
BLOCK_STORAGE_MICROVERSION = "3.0"


@dataclass(frozen=True)
class CloudApis:
    compute: JsonApi
    network: JsonApi
    block_storage: JsonApi
    image: JsonApi
    names: NameLookup
    network_extensions: NetworkExtensions
    alarming: JsonApi
    identity: JsonApi
    identity_names: NameLookup
    object_store: JsonApi | None = None
    dns: JsonApi | None = None
    key_manager: JsonApi | None = None
    messaging: JsonApi | None = None
    container: JsonApi | None = None  # Zun
    reservation: JsonApi | None = None  # Blazar
    workflow: JsonApi | None = None  # Mistral
    container_infra: JsonApi | None = None
    monitoring: JsonApi | None = None


def name_lookup_for(compute: JsonApi, network: JsonApi, image: JsonApi) -> NameLookup:
    """The lookups the type tables need: each kind is one paged list, asked for id and name only."""
    fields = {"fields": ["id", "name"]}
    return NameLookup(
        {
            "flavor": lambda: compute.list_all("/flavors", "flavors"),
            "image": lambda: image.list_all("/images", "images"),
            "network": lambda: network.list_all("/networks", "networks", fields),
            "subnet": lambda: network.list_all("/subnets", "subnets", fields),
            "security_group": lambda: network.list_all("/security-groups", "security_groups", fields),
            "router": lambda: network.list_all("/routers", "routers", fields),
            "port": lambda: network.list_all("/ports", "ports", fields),
            "qos_policy": lambda: network.list_all("/qos/policies", "policies", fields),
            "subnetpool": lambda: network.list_all("/subnetpools", "subnetpools", fields),
            "address_scope": lambda: network.list_all("/address-scopes", "address_scopes", fields),
        }
    )


def identity_lookup_for(identity: JsonApi) -> NameLookup:
    """Keystone names to ids: each kind is one list (Keystone does not page)."""

    def listing(collection: str) -> Callable[[], list[dict[str, Any]]]:
        return lambda: list(identity.get(f"/{collection}").get(collection) or [])

    kinds = ("domain", "project", "user", "group", "role", "service")
    return NameLookup({kind: listing(f"{kind}s") for kind in kinds})
