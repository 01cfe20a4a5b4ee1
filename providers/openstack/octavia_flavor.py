"""OS::Octavia::Flavor: a load balancer flavor made from a flavor profile; synchronous, no tags.

Octavia flavors carry no tags, so the marker is the `description` when the template gives none
(Heat's default is empty), as for Neutron's security group rules; `find_by_marker` is one list
matched on it. Names are unique in Octavia: an unnamed flavor gets Heat's stack-resource-id name.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker
from providers.marker_text import NEUTRON_DESCRIPTION, is_digest
from providers.openstack.json_api import JsonApi
from providers.openstack.marker_tags import physical_name
from providers.openstack.name_lookup import NameLookup

TYPE_NAME = "OS::Octavia::Flavor"
PATH = "/lbaas/flavors"


@dataclass(frozen=True)
class OctaviaFlavorHandler:
    api: JsonApi
    names: NameLookup

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = {
            "name": properties.get("name") or physical_name(marker),
            "description": properties.get("description") or NEUTRON_DESCRIPTION.fitted(marker.tag),
            "enabled": properties.get("enabled", True),
            "flavor_profile_id": self.names.id_of("lb_flavor_profile", str(properties["flavor_profile"])),
        }
        item = self.api.post(PATH, {"flavor": body})["flavor"]
        self.names.forget("lb_flavor")
        return live_flavor(item)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        body = {key: properties.get(key) for key in ("name", "description", "enabled") if key in changed}
        if "name" in body and not body["name"]:
            del body["name"]
        if "description" in body and not body["description"]:
            del body["description"]  # the marker stays where the template wants no description
        path = f"{PATH}/{physical_id}"
        item = self.api.put(path, {"flavor": body})["flavor"] if body else self.api.get(path)["flavor"]
        self.names.forget("lb_flavor")
        return live_flavor(item)

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"{PATH}/{physical_id}")
        self.names.forget("lb_flavor")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {
            item["id"]: live_flavor(item)
            for item in self.api.list_all(PATH, "flavors")
            if item["id"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        text = NEUTRON_DESCRIPTION.fitted(marker.tag)
        for item in self.api.list_all(PATH, "flavors", {"description": text}):
            if item.get("description") == text:
                return replace(live_flavor(item), marker=marker)
        return None


def live_flavor(item: Mapping[str, Any]) -> LiveResource:
    description = item.get("description")
    marker = Marker.parse(description) if isinstance(description, str) else None
    if marker is not None or (isinstance(description, str) and is_digest(description)):
        description = ""
    return LiveResource(
        physical_id=item["id"],
        type=TYPE_NAME,
        status=LiveStatus.READY,
        properties={
            "name": item.get("name"),
            "description": description,
            "enabled": item.get("enabled"),
            "flavor_profile": item.get("flavor_profile_id"),
        },
        attributes={"flavor_profile_id": item.get("flavor_profile_id"), "show": dict(item)},
        marker=marker,
    )
