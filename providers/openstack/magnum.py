"""OS::Magnum::ClusterTemplate and Cluster over Magnum's v1 API, in JSON through the session of the
SDK's container-infrastructure-management proxy (bodies from `providers.catalog.magnum_bodies`).

Magnum names its items by `uuid`, the physical id. The marker is a label; `find_by_marker` and
observation are one paged list (`limit`, `marker`, and the `next` link Magnum gives). A cluster's
create answers only its uuid, so the cluster is read once after it; its changes are JSON patches
(node_count in place, as Heat updates it), after which it goes UPDATE_IN_PROGRESS, then
UPDATE_COMPLETE, which the engine waits for.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from providers.catalog.magnum import CLUSTER, CLUSTER_TEMPLATE
from providers.catalog.magnum_bodies import (
    CLUSTER_FIELDS,
    TEMPLATE_FIELDS,
    carries,
    cluster_attributes,
    cluster_status,
    live_properties,
    patch,
    request_body,
)
from providers.interface import LiveResource, LiveStatus, Marker
from providers.openstack.json_api import PAGE_SIZE, JsonApi

PATCH_TYPE = "application/json"


def listed(api: JsonApi, path: str, key: str) -> Iterator[dict[str, Any]]:
    """Every item of a Magnum list, one request per page, following its `next` link."""
    query: dict[str, Any] = {"limit": PAGE_SIZE}
    while True:
        page = api.get(path, query)
        items: list[dict[str, Any]] = page.get(key) or []
        yield from items
        following = page.get("next")
        markers = parse_qs(urlsplit(following).query).get("marker") if following else None
        if not markers or not items:
            return
        query["marker"] = markers[-1]


@dataclass(frozen=True)
class ClusterTemplateHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = request_body(properties, TEMPLATE_FIELDS, marker)
        return self.live(self.api.post("/clustertemplates", body), marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        path = f"/clustertemplates/{physical_id}"
        current = self.api.get(path)
        operations = patch(properties, changed, TEMPLATE_FIELDS, current.get("labels") or {})
        return self.live(self.api.patch(path, operations, PATCH_TYPE) if operations else current)

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/clustertemplates/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        found = listed(self.api, "/clustertemplates", "clustertemplates")
        return {item["uuid"]: self.live(item) for item in found if item["uuid"] in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        found = (
            item
            for item in listed(self.api, "/clustertemplates", "clustertemplates")
            if carries(item, marker)
        )
        item = next(found, None)
        return None if item is None else self.live(item, marker)

    @staticmethod
    def live(body: Mapping[str, Any], marker: Marker | None = None) -> LiveResource:
        return LiveResource(
            physical_id=str(body["uuid"]),
            type=CLUSTER_TEMPLATE.name,
            status=LiveStatus.READY,
            properties=live_properties(body, TEMPLATE_FIELDS, CLUSTER_TEMPLATE.properties),
            attributes={"show": dict(body)},
            marker=marker,
        )


@dataclass(frozen=True)
class ClusterHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        created = self.api.post("/clusters", request_body(properties, CLUSTER_FIELDS, marker))
        return self.live(self.api.get(f"/clusters/{created['uuid']}"), marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        path = f"/clusters/{physical_id}"
        current = self.api.get(path)
        operations = patch(properties, changed, CLUSTER_FIELDS, current.get("labels") or {})
        if operations:
            self.api.patch(path, operations, PATCH_TYPE)
            current = self.api.get(path)
        return self.live(current)

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/clusters/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {
            item["uuid"]: self.live(item)
            for item in listed(self.api, "/clusters", "clusters")
            if item["uuid"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        item = next(
            (item for item in listed(self.api, "/clusters", "clusters") if carries(item, marker)), None
        )
        return None if item is None else self.live(item, marker)

    @staticmethod
    def live(body: Mapping[str, Any], marker: Marker | None = None) -> LiveResource:
        status = cluster_status(body)
        return LiveResource(
            physical_id=str(body["uuid"]),
            type=CLUSTER.name,
            status=status,
            properties=live_properties(body, CLUSTER_FIELDS, CLUSTER.properties),
            attributes=cluster_attributes(body),
            marker=marker,
            status_reason=f"cluster {body.get('name')} is {body.get('status')}: {body.get('status_reason')}"
            if status is LiveStatus.FAILED
            else "",
        )
