"""OS::Nova::FloatingIP and OS::Nova::FloatingIPAssociation on the simulated cloud: Heat serves
both through Neutron, so they are Neutron floating IPs under Nova's property names. A floating IP
comes from `pool` (an external network's name or id) or, when none is named, from the cloud's
first external network, and shows its network's id as `pool`; an association points the floating
IP at the server's first port.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.adapter import pages, shown
from providers.simulated.heat_types.network_types import FloatingIP
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body


class NovaFloatingIP:
    type_name: ClassVar[str] = "OS::Nova::FloatingIP"

    def __init__(self, resolver: NameResolver) -> None:
        self._neutron = FloatingIP(resolver)

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        pool = properties.get("pool") or _first_external_network(cloud)
        return self._nova_view(cloud, self._neutron.create(cloud, {"floating_network": pool}, marker))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{self.type_name} has no property that changes in place ({sorted(changed)})")

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        self._neutron.delete(cloud, physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        return {
            key: self._nova_view(cloud, live)
            for key, live in self._neutron.observe(cloud, physical_ids).items()
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = self._neutron.find_by_marker(cloud, marker)
        return None if found is None else self._nova_view(cloud, found)

    def _nova_view(self, cloud: SimulatedCloud, live: LiveResource) -> LiveResource:
        pool = live.properties.get("floating_network")
        attributes = {
            "pool": pool,
            "ip": live.attributes.get("floating_ip_address"),
            "show": live.attributes["show"],
        }
        return replace(live, type=self.type_name, properties={"pool": pool}, attributes=attributes)


class NovaFloatingIPAssociation:
    type_name: ClassVar[str] = "OS::Nova::FloatingIPAssociation"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self._associate(cloud, properties)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if str(properties.get("floating_ip")) != physical_id:
            self.delete(cloud, physical_id)
        return self._associate(cloud, properties)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        if not cloud.get("floatingips", physical_id)["port_id"]:
            raise NotFound(f"floating IP {physical_id} is not associated")
        cloud.update("floatingips", physical_id, {"port_id": None})

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        found = {}
        for page in pages(physical_ids):
            for body in cloud.list("floatingips", ids=page):
                if body["port_id"]:
                    found[body["id"]] = self._live(cloud, body)
        return found

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None  # an association is a floating IP's port; associating again is the same call

    def _associate(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> LiveResource:
        server = str(properties.get("server_id"))
        ports = cloud.list("ports", where={"device_id": server})
        if not ports:
            raise Permanent(
                f"server {server} has no port to associate floating IP {properties.get('floating_ip')} with"
            )
        body = cloud.update("floatingips", str(properties.get("floating_ip")), {"port_id": ports[0]["id"]})
        return self._live(cloud, body)

    def _live(self, cloud: SimulatedCloud, body: Body) -> LiveResource:
        ports = cloud.list("ports", ids=[body["port_id"]])
        server = ports[0]["device_id"] if ports else None
        properties = {"server_id": server, "floating_ip": body["id"]}
        return LiveResource(body["id"], self.type_name, LiveStatus.READY, properties, {"show": shown(body)})


def _first_external_network(cloud: SimulatedCloud) -> str:
    external = cloud.list("networks", where={"router:external": True})
    if not external:
        raise Permanent("no floating IP pool is named and the cloud has no external network")
    return str(external[0]["id"])


TYPES = (NovaFloatingIP, NovaFloatingIPAssociation)
