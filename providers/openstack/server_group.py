"""OS::Nova::ServerGroup: policies and (Nova 2.64+) rules; every property replaces the group.

Server groups carry no tags or metadata. A group the template leaves unnamed is named after its
marker (Heat's stack-resource-id form), which is what `find_by_marker` looks for; a named group
cannot be found again after a crash. Nova lists server groups with limit and offset but no next
links, so one list call reads up to a page of 1,000 groups.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import physical_name

TYPE_NAME = "OS::Nova::ServerGroup"
RULES_MICROVERSION = "2.64"  # one `policy` and its `rules` instead of a `policies` list
PATH = "/os-server-groups"
PAGE = 1000  # server groups per request


@dataclass(frozen=True)
class ServerGroupHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        name = properties.get("name") or physical_name(marker)
        policies = list(properties.get("policies") or ["anti-affinity"])
        if properties.get("rules"):
            compute = dataclasses.replace(self.apis.compute, microversion=RULES_MICROVERSION)
            body = {"name": name, "policy": policies[0], "rules": dict(properties["rules"])}
            created = compute.post(PATH, {"server_group": body})["server_group"]
        else:
            created = self.apis.compute.post(PATH, {"server_group": {"name": name, "policies": policies}})
            created = created["server_group"]
        return live_group(created, marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{TYPE_NAME} has no property that changes in place ({sorted(changed)})")

    def delete(self, physical_id: str) -> None:
        self.apis.compute.delete(f"{PATH}/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {item["id"]: live_group(item) for item in self.listed() if item["id"] in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        name = physical_name(marker)
        for item in self.listed():
            if item.get("name") == name:
                return live_group(item, marker)
        return None

    def listed(self) -> list[dict[str, Any]]:
        """Every server group of the project: Nova pages them by offset, with no next link."""
        groups: list[dict[str, Any]] = []
        while True:
            page = (
                self.apis.compute.get(PATH, {"limit": PAGE, "offset": len(groups)}).get("server_groups") or []
            )
            groups.extend(page)
            if len(page) < PAGE:
                return groups


def live_group(item: Mapping[str, Any], marker: Marker | None = None) -> LiveResource:
    policies = item.get("policies") or ([item["policy"]] if item.get("policy") else [])
    return LiveResource(
        physical_id=item["id"],
        type=TYPE_NAME,
        status=LiveStatus.READY,
        marker=marker,
        properties={"name": item.get("name"), "policies": policies},
        attributes={"show": dict(item)},
    )
