"""OS::Neutron::RouterInterface: a subnet or port plugged into a router.

Neutron has no interface object of its own, so the physical id is Heat's: `<router>:subnet_id=<id>`
or `<router>:port_id=<id>`. The interface can carry no tag; instead `create` first looks at the
router's ports and adopts an interface that is already there, which makes a repeated create (after
a crash) harmless. Observe reads every router port of the project with one paged list filtered by
device owner.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent
from providers.openstack.cloud_apis import CloudApis

TYPE_NAME = "OS::Neutron::RouterInterface"
ROUTER_OWNERS = [
    "network:router_interface",
    "network:router_interface_distributed",
    "network:ha_router_replicated_interface",
]


@dataclass(frozen=True)
class InterfaceId:
    router_id: str
    key: str  # "subnet_id" | "port_id"
    value: str

    def __str__(self) -> str:
        return f"{self.router_id}:{self.key}={self.value}"

    @classmethod
    def parse(cls, physical_id: str) -> InterfaceId:
        router_id, _, rest = physical_id.partition(":")
        key, _, value = rest.partition("=")
        if key not in ("subnet_id", "port_id") or not value:
            raise NotFound(f"{physical_id!r} is not a router interface id")
        return cls(router_id, key, value)

    def matches(self, port: Mapping[str, Any]) -> bool:
        if port.get("device_id") != self.router_id:
            return False
        if self.key == "port_id":
            return bool(port.get("id") == self.value)
        return any(ip.get("subnet_id") == self.value for ip in port.get("fixed_ips") or [])


@dataclass(frozen=True)
class RouterInterfaceHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        interface = self.interface_id(properties)
        if not any(interface.matches(port) for port in self.router_ports({interface.router_id})):
            body = {interface.key: interface.value}
            self.apis.network.put(f"/routers/{interface.router_id}/add_router_interface", body)
        return live_interface(interface)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{TYPE_NAME} has no property that changes in place ({sorted(changed)})")

    def delete(self, physical_id: str) -> None:
        interface = InterfaceId.parse(physical_id)
        body = {interface.key: interface.value}
        self.apis.network.put(f"/routers/{interface.router_id}/remove_router_interface", body)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        interfaces = [InterfaceId.parse(physical_id) for physical_id in physical_ids]
        if not interfaces:
            return {}
        ports = list(self.router_ports({interface.router_id for interface in interfaces}))
        return {
            str(interface): live_interface(interface)
            for interface in interfaces
            if any(interface.matches(port) for port in ports)
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # nothing to find by: create adopts an existing interface instead

    def interface_id(self, properties: Mapping[str, Any]) -> InterfaceId:
        router = self.apis.names.id_of("router", properties["router"])
        if properties.get("subnet"):
            return InterfaceId(router, "subnet_id", self.apis.names.id_of("subnet", properties["subnet"]))
        if properties.get("port"):
            return InterfaceId(router, "port_id", self.apis.names.id_of("port", properties["port"]))
        raise Permanent(f"{TYPE_NAME} needs a subnet or a port")

    def router_ports(self, router_ids: set[str]) -> Iterable[dict[str, Any]]:
        query: dict[str, Any] = {"device_owner": ROUTER_OWNERS}
        if len(router_ids) <= 100:
            query["device_id"] = sorted(router_ids)
        return self.apis.network.list_all("/ports", "ports", query)


def live_interface(interface: InterfaceId) -> LiveResource:
    return LiveResource(
        physical_id=str(interface),
        type=TYPE_NAME,
        status=LiveStatus.READY,
        properties={"router": interface.router_id, interface.key.removesuffix("_id"): interface.value},
        attributes={"show": {"router_id": interface.router_id, interface.key: interface.value}},
    )
