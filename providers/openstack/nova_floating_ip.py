"""OS::Nova::FloatingIP and OS::Nova::FloatingIPAssociation: Heat serves both through Neutron, so
they are Neutron floating IPs under Nova's property names.

| Heat property | Neutron call |
|---|---|
| pool (an external network; the first one when empty) | `POST /floatingips` floating_network_id |
| server_id, floating_ip | `PUT /floatingips/{id}` port_id: the server's first port (`GET /ports`) |

The floating IP shows its network's id as `pool`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.neutron_resource import NeutronResourceHandler
from providers.openstack.neutron_tables import FLOATING_IP

FLOATING_IP_TYPE = "OS::Nova::FloatingIP"
ASSOCIATION_TYPE = "OS::Nova::FloatingIPAssociation"
PATH = "/floatingips"


@dataclass(frozen=True)
class NovaFloatingIPHandler:
    apis: CloudApis

    @property
    def _neutron(self) -> NeutronResourceHandler:
        return NeutronResourceHandler(self.apis, FLOATING_IP)

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        pool = properties.get("pool") or self._first_external_network()
        return self._nova_view(self._neutron.create({"floating_network": pool}, marker))

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{FLOATING_IP_TYPE} has no property that changes in place ({sorted(changed)})")

    def delete(self, physical_id: str) -> None:
        self._neutron.delete(physical_id)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {key: self._nova_view(live) for key, live in self._neutron.observe(physical_ids).items()}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        found = self._neutron.find_by_marker(marker)
        return None if found is None else self._nova_view(found)

    def _first_external_network(self) -> str:
        for network in self.apis.network.list_all("/networks", "networks", {"router:external": "true"}):
            return str(network["id"])
        raise Permanent("no floating IP pool is named and the cloud has no external network")

    def _nova_view(self, live: LiveResource) -> LiveResource:
        shown = dict(live.attributes.get("show") or {})
        pool = shown.get("floating_network_id")
        attributes = {"pool": pool, "ip": shown.get("floating_ip_address"), "show": shown}
        return replace(live, type=FLOATING_IP_TYPE, properties={"pool": pool}, attributes=attributes)


@dataclass(frozen=True)
class NovaFloatingIPAssociationHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self._associate(properties)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if str(properties.get("floating_ip")) != physical_id:
            self.delete(physical_id)
        return self._associate(properties)

    def delete(self, physical_id: str) -> None:
        if not self.apis.network.get(f"{PATH}/{physical_id}")["floatingip"].get("port_id"):
            raise NotFound(f"floating IP {physical_id} is associated with no port")
        self.apis.network.put(f"{PATH}/{physical_id}", {"floatingip": {"port_id": None}})

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        query = {"id": sorted(wanted)} if len(wanted) <= 100 else {}
        return {
            item["id"]: self._live(item)
            for item in self.apis.network.list_all(PATH, "floatingips", query)
            if item["id"] in wanted and item.get("port_id")
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # an association is a floating IP's port; associating again is the same call

    def _associate(self, properties: Mapping[str, Any]) -> LiveResource:
        server = str(properties.get("server_id"))
        floating_ip = str(properties.get("floating_ip"))
        ports = list(self.apis.network.list_all("/ports", "ports", {"device_id": server}))
        if not ports:
            raise Permanent(f"server {server} has no port to associate floating IP {floating_ip} with")
        item = self.apis.network.put(f"{PATH}/{floating_ip}", {"floatingip": {"port_id": ports[0]["id"]}})
        return self._live(item["floatingip"])

    def _live(self, item: Mapping[str, Any]) -> LiveResource:
        ports = list(self.apis.network.list_all("/ports", "ports", {"id": [item["port_id"]]}))
        server = ports[0].get("device_id") if ports else None
        properties = {"server_id": server, "floating_ip": item["id"]}
        return LiveResource(item["id"], ASSOCIATION_TYPE, LiveStatus.READY, properties, {"show": dict(item)})
