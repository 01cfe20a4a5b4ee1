"""The Octavia (load-balancer v2) types of this provider, through the SDK's load_balancer proxy.

The proxy is reached on first use, not when the provider is built: reaching it runs the SDK's
version discovery, and a cloud without Octavia must cost nothing until a template asks for a load
balancer (then the call fails with "the cloud's catalog has no endpoint for this service").
Octavia objects are named by name or id in templates (`loadbalancer: lb`): this service's own name
lookup lists them, while Neutron's subnets and networks go through the provider's shared lookup.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from providers.openstack.cloud_apis import CloudApis
from providers.openstack.json_api import JsonApi
from providers.openstack.name_lookup import NameLookup
from providers.openstack.octavia_flavor import TYPE_NAME as FLAVOR_TYPE
from providers.openstack.octavia_flavor import OctaviaFlavorHandler
from providers.openstack.octavia_members import PoolMemberHandler
from providers.openstack.octavia_resource import OctaviaResourceHandler
from providers.openstack.octavia_tables import POOL_MEMBER, TABLES
from providers.openstack.type_handler import TypeHandler

SERVICE = "load-balancer"
TYPE_NAMES = frozenset({*(table.type_name for table in TABLES), FLAVOR_TYPE})  # the types served here
NAMED_KINDS = {
    "loadbalancer": ("/lbaas/loadbalancers", "loadbalancers"),
    "listener": ("/lbaas/listeners", "listeners"),
    "pool": ("/lbaas/pools", "pools"),
    "l7policy": ("/lbaas/l7policies", "l7policies"),
    "lb_flavor": ("/lbaas/flavors", "flavors"),
    "lb_flavor_profile": ("/lbaas/flavorprofiles", "flavorprofiles"),
}


class DeferredProxy:
    """The connection's load_balancer proxy, made when the first request is sent."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def request(self, *args: Any, **kwargs: Any) -> Any:
        return self._connection.load_balancer.request(*args, **kwargs)


def octavia_names(api: JsonApi, shared: CloudApis) -> NameLookup:
    """Octavia's own kinds, listed with this service's API, beside Neutron's subnets and networks."""

    def lister(path: str, key: str) -> Any:
        return lambda: api.list_all(path, key)

    kinds = {kind: lister(path, key) for kind, (path, key) in NAMED_KINDS.items()}
    kinds["subnet"] = lambda: shared.network.list_all("/subnets", "subnets", {"fields": ["id", "name"]})
    kinds["network"] = lambda: shared.network.list_all("/networks", "networks", {"fields": ["id", "name"]})
    return NameLookup(kinds)


def load_balancing_handlers(
    connection: Any, shared: CloudApis, pause: Callable[[float], None] = time.sleep
) -> dict[str, TypeHandler]:
    """One handler per Octavia type, sharing one API client and one name lookup; members wait for
    their load balancer with `pause`."""
    api = JsonApi(DeferredProxy(connection), SERVICE)
    names = octavia_names(api, shared)
    handlers: dict[str, TypeHandler] = {
        table.type_name: OctaviaResourceHandler(api, names, table) for table in TABLES
    }
    handlers[POOL_MEMBER.type_name] = PoolMemberHandler(api, names, POOL_MEMBER, pause=pause)
    handlers[FLAVOR_TYPE] = OctaviaFlavorHandler(api, names)
    return handlers
