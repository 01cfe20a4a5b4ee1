"""Aodh alarms (every OS::Aodh type Heat writes), in JSON through the SDK's `alarm` service proxy.

openstacksdk has no Aodh resources, only the service's generic proxy: it finds the `alarming`
endpoint in the catalog and its v2 by version discovery, so paths here are under `/v2`. Alarms
carry no tags or metadata, and Heat gives them no name property: each is named after its marker
(Heat's stack-resource-id form), which is unique per project in Aodh, so `find_by_marker` is one
list filtered by that name and a create that meets the name (409) adopts the alarm holding it.
An update replaces the whole alarm (Aodh's PUT), keeping its name. Observation lists every alarm
of the project, in pages of `PAGE` (Aodh answers a bare array, so a short page is the last one).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.alarm_bodies import ALARM_KINDS, alarm_body, alarm_properties
from providers.interface import LiveResource, LiveStatus, Marker, Retryable
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import physical_name

PATH = "/alarms"
PAGE = 1000


@dataclass(frozen=True)
class AlarmHandler:
    apis: CloudApis
    type_name: str

    @property
    def kind(self) -> str:
        return ALARM_KINDS[self.type_name][0]

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = alarm_body(self.type_name, properties, physical_name(marker))
        try:
            created = self.apis.alarming.post(PATH, body)
        except Retryable as error:
            if not error.conflict:
                raise
            existing = self.find_by_marker(marker)
            if existing is None:
                raise
            return existing
        return self.live(created, marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = self.apis.alarming.get(f"{PATH}/{physical_id}")
        replaced = self.apis.alarming.put(
            f"{PATH}/{physical_id}", alarm_body(self.type_name, properties, current["name"])
        )
        return self.live(replaced)

    def delete(self, physical_id: str) -> None:
        self.apis.alarming.delete(f"{PATH}/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        query = {"q.field": ["type"], "q.op": ["eq"], "q.value": [self.kind]}
        return {
            item["alarm_id"]: self.live(item) for item in self.listed(query) if item["alarm_id"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        query = {"q.field": ["name"], "q.op": ["eq"], "q.value": [physical_name(marker)]}
        for item in self.listed(query):
            return self.live(item, marker)
        return None

    def listed(self, query: Mapping[str, list[str]]) -> Iterator[dict[str, Any]]:
        params: dict[str, Any] = {**query, "limit": PAGE}
        while True:
            page: list[dict[str, Any]] = self.apis.alarming.get(PATH, params) or []
            yield from page
            if len(page) < PAGE:
                return
            params["marker"] = page[-1]["alarm_id"]

    def live(self, item: Mapping[str, Any], marker: Marker | None = None) -> LiveResource:
        return LiveResource(
            physical_id=item["alarm_id"],
            type=self.type_name,
            status=LiveStatus.READY,
            properties=alarm_properties(self.type_name, item),
            attributes={"alarm_id": item["alarm_id"], "state": item.get("state"), "show": dict(item)},
            marker=marker,
        )
