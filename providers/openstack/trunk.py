"""OS::Neutron::Trunk: a tagged Neutron resource whose sub-ports change through
`PUT /trunks/{id}/add_subports` and `PUT /trunks/{id}/remove_subports`, never the trunk's own update.

| Heat property | Neutron body key |
|---|---|
| name, description, admin_state_up | same names |
| port (name or id) | trunk.port_id |
| sub_ports: port (name or id), segmentation_type, segmentation_id | trunk.sub_ports: port_id, ... |
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from providers.interface import LiveResource, Marker
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.name_lookup import NameLookup
from providers.openstack.neutron_resource import NeutronResourceHandler
from providers.openstack.neutron_table import BodyField, NeutronTable, resolved


def neutron_sub_ports(value: Any, names: NameLookup) -> list[dict[str, Any]]:
    """Heat's sub_ports entries ({port, segmentation_type, segmentation_id}) as Neutron's."""
    return [
        {
            "port_id": names.id_of("port", entry["port"]),
            "segmentation_type": entry.get("segmentation_type", "vlan"),
            "segmentation_id": entry.get("segmentation_id"),
        }
        for entry in value or []
    ]


TRUNK = NeutronTable(
    "OS::Neutron::Trunk",
    "trunks",
    "trunk",
    {
        "name": BodyField("name"),
        "description": BodyField("description"),
        "admin_state_up": BodyField("admin_state_up"),
        "port": BodyField("port_id", resolved("port")),
        "sub_ports": BodyField("sub_ports", neutron_sub_ports),
    },
    attributes=frozenset({"port_id", "sub_ports", "status"}),
)


@dataclass(frozen=True)
class TrunkHandler:
    apis: CloudApis

    @property
    def _base(self) -> NeutronResourceHandler:
        return NeutronResourceHandler(self.apis, TRUNK)

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self._heat_view(self._base.create(properties, marker))

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if "sub_ports" in changed:
            path = f"{TRUNK.path}/{physical_id}"
            current = {entry["port_id"]: entry for entry in self.apis.network.get(path)["trunk"]["sub_ports"]}
            wanted_list = neutron_sub_ports(properties.get("sub_ports"), self.apis.names)
            wanted = {entry["port_id"]: entry for entry in wanted_list}
            gone = [{"port_id": port} for port, entry in current.items() if wanted.get(port) != entry]
            added = [entry for port, entry in wanted.items() if current.get(port) != entry]
            if gone:
                self.apis.network.put(f"{path}/remove_subports", {"sub_ports": gone})
            if added:
                self.apis.network.put(f"{path}/add_subports", {"sub_ports": added})
        return self._heat_view(self._base.update(physical_id, properties, changed - {"sub_ports"}))

    def delete(self, physical_id: str) -> None:
        self._base.delete(physical_id)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {key: self._heat_view(live) for key, live in self._base.observe(physical_ids).items()}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        found = self._base.find_by_marker(marker)
        return None if found is None else self._heat_view(found)

    @staticmethod
    def _heat_view(live: LiveResource) -> LiveResource:
        """Sub-ports read back under Heat's property names, so drift compares like with like."""
        sub_ports = [
            {
                "port": entry["port_id"],
                "segmentation_type": entry["segmentation_type"],
                "segmentation_id": entry["segmentation_id"],
            }
            for entry in live.properties.get("sub_ports") or ()
        ]
        return replace(live, properties={**live.properties, "sub_ports": sub_ports})
