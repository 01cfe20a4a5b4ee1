"""OS::Neutron::FloatingIPAssociation: a floating IP pointed at a port.

The association is a state of the floating IP, so its physical id is the floating IP's id and a
create or update is one `PUT /floatingips/{id}`. A floating IP whose port was cleared out
of band is reported missing (the association is gone), so drift repair re-associates it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound
from providers.openstack.cloud_apis import CloudApis

TYPE_NAME = "OS::Neutron::FloatingIPAssociation"
PATH = "/floatingips"


@dataclass(frozen=True)
class FloatingIPAssociationHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self.associate(properties)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if properties["floatingip_id"] != physical_id:
            self.delete(physical_id)
        return self.associate(properties)

    def delete(self, physical_id: str) -> None:
        floating_ip = self.apis.network.get(f"{PATH}/{physical_id}")["floatingip"]
        if not floating_ip.get("port_id"):
            raise NotFound(f"floating IP {physical_id} is associated with no port")
        self.apis.network.put(f"{PATH}/{physical_id}", {"floatingip": {"port_id": None}})

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        query = {"id": sorted(wanted)} if len(wanted) <= 100 else {}
        return {
            item["id"]: live_association(item)
            for item in self.apis.network.list_all(PATH, "floatingips", query)
            if item["id"] in wanted and item.get("port_id")
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # a re-association after a crash is the same PUT: nothing to duplicate

    def associate(self, properties: Mapping[str, Any]) -> LiveResource:
        body: dict[str, Any] = {"port_id": properties["port_id"]}
        if properties.get("fixed_ip_address"):
            body["fixed_ip_address"] = properties["fixed_ip_address"]
        path = f"{PATH}/{properties['floatingip_id']}"
        return live_association(self.apis.network.put(path, {"floatingip": body})["floatingip"])


def live_association(item: Mapping[str, Any]) -> LiveResource:
    return LiveResource(
        physical_id=item["id"],
        type=TYPE_NAME,
        status=LiveStatus.READY,
        properties={
            "floatingip_id": item["id"],
            "port_id": item.get("port_id"),
            "fixed_ip_address": item.get("fixed_ip_address"),
        },
        attributes={"show": dict(item)},
    )
