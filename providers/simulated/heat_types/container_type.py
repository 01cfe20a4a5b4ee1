"""OS::Zun::Container on the simulated cloud, as the OpenStack provider speaks it over HTTP
(`providers.catalog.container_bodies`): the uuid is the physical id, the marker a label, each
network a port of its own, and a delete stops the container first."""

from __future__ import annotations

import ipaddress
from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.catalog.container_bodies import PATCHED, carries, container_body, container_live
from providers.interface import LiveResource, Marker
from providers.simulated.application_containers import COLLECTION
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.resolving import NameResolver


class Container:
    type_name: ClassVar[str] = "OS::Zun::Container"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = container_body(properties, marker)
        if properties.get("networks"):
            body["nets"] = [self._net(entry) for entry in properties["networks"]]
        return container_live(cloud.create(COLLECTION, body), marker, self._network_names(cloud))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        patch = {key: properties.get(key) for key in PATCHED if key in changed}
        body = cloud.get(COLLECTION, physical_id)
        if patch:
            body = cloud.update(COLLECTION, physical_id, patch)
        if "networks" in changed:
            wanted = {self._net(entry).get("network") for entry in properties.get("networks") or ()} - {None}
            for network in sorted(set(body["addresses"]) - wanted):
                body = cloud.act(COLLECTION, physical_id, "network_detach", {"network": network})
            for network in sorted(str(n) for n in wanted - set(body["addresses"])):
                body = cloud.act(COLLECTION, physical_id, "network_attach", {"network": network})
        return container_live(body, None, self._network_names(cloud))

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete(COLLECTION, physical_id)  # stopped and deleted, as `stop=true` asks over HTTP

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        found = cloud.list(COLLECTION, ids=list(physical_ids))
        names = self._network_names(cloud) if found else {}
        return {body["uuid"]: container_live(body, None, names) for body in found}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        for body in cloud.list(COLLECTION):
            if carries(body, marker):
                return container_live(body, marker, self._network_names(cloud))
        return None

    def _net(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        net: dict[str, Any] = {}
        if entry.get("network"):
            net["network"] = self.resolver.id_of("networks", str(entry["network"]), "network")
        if entry.get("port"):
            net["port"] = self.resolver.id_of("ports", str(entry["port"]), "port")
        if entry.get("fixed_ip"):
            net[f"v{ipaddress.ip_address(str(entry['fixed_ip'])).version}-fixed-ip"] = entry["fixed_ip"]
        return net

    @staticmethod
    def _network_names(cloud: SimulatedCloud) -> dict[str, str]:
        return {body["id"]: body["name"] for body in cloud.list("networks")}


TYPES = (Container,)
