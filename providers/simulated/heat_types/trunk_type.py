"""OS::Neutron::Trunk on the simulated cloud: a tagged Neutron collection whose sub-ports change
through the trunk's add_subports and remove_subports calls, never its own update.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.adapter import TaggedCollection
from providers.simulated.inventory import Body


class Trunk(TaggedCollection):
    type_name = "OS::Neutron::Trunk"
    collection = "trunks"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "description": "description",
        "admin_state_up": "admin_state_up",
    }

    def fields(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> Body:
        request = super().fields(cloud, properties)
        if properties.get("port"):
            request["port_id"] = self.resolver.id_of("ports", properties["port"], "Port")
        if properties.get("sub_ports"):
            request["sub_ports"] = self._sub_ports(properties["sub_ports"])
        return request

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if "sub_ports" in changed:
            current = {
                entry["port_id"]: entry for entry in cloud.get(self.collection, physical_id)["sub_ports"]
            }
            wanted = {entry["port_id"]: entry for entry in self._sub_ports(properties.get("sub_ports") or [])}
            gone = [{"port_id": port} for port, entry in current.items() if wanted.get(port) != entry]
            added = [entry for port, entry in wanted.items() if current.get(port) != entry]
            if gone:
                cloud.act(self.collection, physical_id, "remove_subports", {"sub_ports": gone})
            if added:
                cloud.act(self.collection, physical_id, "add_subports", {"sub_ports": added})
        return super().update(cloud, physical_id, properties, changed - {"sub_ports"})

    def _sub_ports(self, entries: Any) -> list[dict[str, Any]]:
        return [
            {
                "port_id": self.resolver.id_of("ports", entry["port"], "Port"),
                "segmentation_type": entry.get("segmentation_type", "vlan"),
                "segmentation_id": entry.get("segmentation_id"),
            }
            for entry in entries
        ]

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {**super().properties_of(body), "port": body["port_id"], "sub_ports": heat_sub_ports(body)}

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        return {"port_id": body["port_id"], "sub_ports": body["sub_ports"], "status": body["status"]}


def heat_sub_ports(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A trunk's sub-ports under Heat's property names."""
    return [
        {
            "port": entry["port_id"],
            "segmentation_type": entry["segmentation_type"],
            "segmentation_id": entry["segmentation_id"],
        }
        for entry in body.get("sub_ports") or ()
    ]


TYPES = (Trunk,)
