"""OS::Zun::Container: a container run by Zun (the `container` service), spoken to in JSON; its
body and reading are `providers.catalog.container_bodies`.

Every call names Zun's API version 1.12 (`OpenStack-API-Version: container 1.12`). A create is
Heat's `run`: POST with `run=true` and the template's networks as Zun's `nets`
(network names resolved to ids, `fixed_ip` as `v4-fixed-ip` or `v6-fixed-ip`). The uuid is the
physical id; `find_by_marker` reads the labels in the paged list. Name, cpu and memory change in
place (one PATCH); a change of networks detaches the networks dropped and attaches the ones added,
as Heat does. A delete stops the container first (`stop=true`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.container_bodies import PATCHED, carries, container_body, container_live
from providers.interface import LiveResource, Marker
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.json_api import JsonApi

# Zun 1.2 takes `nets` in the create body; without the header Zun speaks 1.1, which refuses them.
VERSION_HEADER = {"OpenStack-API-Version": "container 1.12"}


@dataclass(frozen=True)
class ContainerHandler:
    apis: CloudApis
    api: JsonApi

    def call(self, method: str, path: str, **options: Any) -> Any:
        return self.api.with_headers(method, path, headers=VERSION_HEADER, **options)[1]

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = container_body(properties, marker)
        if properties.get("networks"):
            body["nets"] = [self._net(entry) for entry in properties["networks"]]
        created = self.call("POST", "/containers", params={"run": "true"}, body=body)
        return container_live(created, marker, self._network_names())

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        patch = {key: properties.get(key) for key in PATCHED if key in changed}
        if patch:
            self.call("PATCH", f"/containers/{physical_id}", body=patch)
        if "networks" in changed:
            self._move_networks(physical_id, properties.get("networks") or ())
        return container_live(self.call("GET", f"/containers/{physical_id}"), None, self._network_names())

    def delete(self, physical_id: str) -> None:
        self.call("DELETE", f"/containers/{physical_id}", params={"stop": "true"})

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        found = [c for c in self.api.list_all("/containers", "containers") if c["uuid"] in wanted]
        names = self._network_names() if found else {}
        return {container["uuid"]: container_live(container, None, names) for container in found}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        for container in self.api.list_all("/containers", "containers"):
            if carries(container, marker):
                return container_live(container, marker, self._network_names())
        return None

    def _move_networks(self, physical_id: str, wanted_entries: Collection[Mapping[str, Any]]) -> None:
        """Detach the networks the template dropped and attach the ones it added."""
        current = set(self.call("GET", f"/containers/{physical_id}").get("addresses") or {})
        wanted = {str(self._net(entry).get("network")) for entry in wanted_entries if entry.get("network")}
        path = f"/containers/{physical_id}"
        for network in sorted(current - wanted):
            self.call("POST", f"{path}/network_detach", params={"network": network})
        for network in sorted(wanted - current):
            self.call("POST", f"{path}/network_attach", params={"network": network})

    def _net(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        net: dict[str, Any] = {}
        if entry.get("network"):
            net["network"] = self.apis.names.id_of("network", str(entry["network"]))
        if entry.get("port"):
            net["port"] = self.apis.names.id_of("port", str(entry["port"]))
        if entry.get("fixed_ip"):
            version = ipaddress.ip_address(str(entry["fixed_ip"])).version
            net[f"v{version}-fixed-ip"] = entry["fixed_ip"]
        return net

    def _network_names(self) -> dict[str, str]:
        listed = self.apis.network.list_all("/networks", "networks", {"fields": ["id", "name"]})
        return {network["id"]: network["name"] for network in listed}
