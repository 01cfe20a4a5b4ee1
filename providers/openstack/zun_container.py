"""OS::Zun::Container: a container run by Zun (the `container` service), spoken to in JSON.

A create is Heat's `run`: POST with `run=true`, the template's networks as Zun's `nets` (network
names resolved to ids, `fixed_ip` as `v4-fixed-ip` or `v6-fixed-ip`); the container is Creating,
then Running (READY); Error is FAILED with Zun's reason, and so is a container that stopped, as a
running container is what the template asks for. The marker rides in the container's labels
(`reconciler_marker`), which is what `find_by_marker` reads from the paged list. The uuid is the
physical id. Name, cpu and memory change in place (one PATCH); a change of networks detaches the
networks dropped and attaches the ones added, as Heat does. A delete stops the container
(`stop=true`).

The `addresses` attribute is Heat's: Zun's map keyed by network id, with each network's name
added as a key beside its id, so `get_attr: [c, addresses, private, 0, addr]` works as in Heat.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker
from providers.marker_text import METADATA_VALUE
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.json_api import JsonApi

TYPE_NAME = "OS::Zun::Container"
MARKER_KEY = "reconciler_marker"
PASSED = ("name", "image", "command", "cpu", "memory", "environment", "workdir", "image_pull_policy",
          "restart_policy", "interactive", "image_driver", "hints", "hostname", "security_groups",
          "mounts", "tty")  # fmt: skip
PATCHED = ("name", "cpu", "memory")
STATUSES = {"Running": LiveStatus.READY, "Creating": LiveStatus.IN_PROGRESS, "Created": LiveStatus.IN_PROGRESS}


@dataclass(frozen=True)
class ContainerHandler:
    apis: CloudApis
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body: dict[str, Any] = {key: properties[key] for key in PASSED if properties.get(key) is not None}
        body["labels"] = {**(properties.get("labels") or {}), MARKER_KEY: METADATA_VALUE.fitted(marker.tag)}
        if properties.get("networks"):
            body["nets"] = [self._net(entry) for entry in properties["networks"]]
        created = self.api.with_headers("POST", "/containers", params={"run": "true"}, body=body)[1]
        return self.live(created, marker, self._network_names())

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        patch = {key: properties.get(key) for key in PATCHED if key in changed}
        if patch:
            self.api.patch(f"/containers/{physical_id}", patch)
        if "networks" in changed:
            self._move_networks(physical_id, properties.get("networks") or ())
        return self.live(self.api.get(f"/containers/{physical_id}"), None, self._network_names())

    def delete(self, physical_id: str) -> None:
        self.api.with_headers("DELETE", f"/containers/{physical_id}", params={"stop": "true"})

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        found = [c for c in self.api.list_all("/containers", "containers") if c["uuid"] in wanted]
        names = self._network_names() if found else {}
        return {container["uuid"]: self.live(container, None, names) for container in found}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        tag = METADATA_VALUE.fitted(marker.tag)
        for container in self.api.list_all("/containers", "containers"):
            if (container.get("labels") or {}).get(MARKER_KEY) == tag:
                return self.live(container, marker, self._network_names())
        return None

    def _move_networks(self, physical_id: str, wanted_entries: Collection[Mapping[str, Any]]) -> None:
        """Detach the networks the template dropped and attach the ones it added, as Heat does."""
        current = set((self.api.get(f"/containers/{physical_id}").get("addresses") or {}))
        wanted = {self._net(entry).get("network") for entry in wanted_entries} - {None}
        for network in sorted(current - wanted):
            self.api.with_headers("POST", f"/containers/{physical_id}/network_detach", params={"network": network})
        for network in sorted(str(n) for n in wanted - current):
            self.api.with_headers("POST", f"/containers/{physical_id}/network_attach", params={"network": network})

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

    @staticmethod
    def live(container: Mapping[str, Any], marker: Marker | None, network_names: Mapping[str, str]) -> LiveResource:
        status = str(container.get("status"))
        addresses = dict(container.get("addresses") or {})
        for network_id, entries in list(addresses.items()):
            if network_names.get(network_id):
                addresses[network_names[network_id]] = entries
        labels = {key: value for key, value in (container.get("labels") or {}).items() if key != MARKER_KEY}
        reported = {key: container.get(key) for key in ("name", "image", "cpu", "memory", "command")}
        reported["labels"] = labels
        attributes = {
            "addresses": addresses,
            "name": container.get("name"),
            "cpu": container.get("cpu"),
            "memory": container.get("memory"),
        }
        reason = "" if status in STATUSES else f"the container is {status}: {container.get('status_reason') or ''}"
        return LiveResource(
            str(container["uuid"]), TYPE_NAME, STATUSES.get(status, LiveStatus.FAILED), reported, attributes,
            marker, status_reason=reason.strip().rstrip(":"),
        )  # fmt: skip
