"""OS::Monasca::Notification and AlarmDefinition over Monasca's v2.0 API, in JSON through the SDK's
session (the SDK has no Monasca proxy; the `monitoring` endpoint comes from the catalog).

Monasca keeps no tags: an unnamed item is given the physical name the marker makes, which is what
`find_by_marker` looks for; a definition named by its template is recognised by its description
(the marker when the template gives none). A create meeting a definition of the same name (409)
adopts it when its expression and description are this resource's, and fails otherwise. A
notification change is one PUT of the whole method, a definition change one PATCH of what changed.
Lists are paged by `offset` and `limit`, following the `next` link Monasca gives.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from providers.catalog.monasca import ALARM_DEFINITION, NOTIFICATION
from providers.catalog.monasca_bodies import (
    definition_body,
    definition_patch,
    definition_properties,
    is_same,
    marker_description,
    notification_body,
    notification_properties,
    physical_name,
)
from providers.interface import LiveResource, LiveStatus, Marker, Permanent, Retryable
from providers.openstack.json_api import PAGE_SIZE, JsonApi

NOTIFICATIONS = "/notification-methods"
DEFINITIONS = "/alarm-definitions"


def listed(api: JsonApi, path: str) -> Iterator[dict[str, Any]]:
    """Every element of a Monasca list, one request per page, following its `next` link."""
    query: dict[str, Any] = {"limit": PAGE_SIZE}
    while True:
        page = api.get(path, query)
        elements: list[dict[str, Any]] = page.get("elements") or []
        yield from elements
        following = next(
            (link["href"] for link in page.get("links") or () if link.get("rel") == "next"), None
        )
        offsets = parse_qs(urlsplit(following).query).get("offset") if following else None
        if not offsets or not elements:
            return
        query["offset"] = offsets[-1]


@dataclass(frozen=True)
class NotificationHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self.live(self.api.post(NOTIFICATIONS, notification_body(properties, marker)), marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        path = f"{NOTIFICATIONS}/{physical_id}"
        current = self.api.get(path)
        body = {
            **notification_body(properties, None),
            **({} if properties.get("name") else {"name": current["name"]}),
        }
        return self.live(self.api.put(path, body))

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"{NOTIFICATIONS}/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        return (
            {item["id"]: self.live(item) for item in listed(self.api, NOTIFICATIONS) if item["id"] in wanted}
            if wanted
            else {}
        )

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        name = physical_name(marker)
        item = next((item for item in listed(self.api, NOTIFICATIONS) if item.get("name") == name), None)
        return None if item is None else self.live(item, marker)

    @staticmethod
    def live(body: Mapping[str, Any], marker: Marker | None = None) -> LiveResource:
        return LiveResource(
            physical_id=str(body["id"]),
            type=NOTIFICATION.name,
            status=LiveStatus.READY,
            properties=notification_properties(body),
            attributes={"show": dict(body)},
            marker=marker,
        )


@dataclass(frozen=True)
class AlarmDefinitionHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = definition_body(properties, marker)
        try:
            return self.live(self.api.post(DEFINITIONS, body), marker)
        except Retryable as error:
            if not error.conflict:
                raise
            same = next((item for item in listed(self.api, DEFINITIONS) if is_same(item, body)), None)
            if same is None:
                raise Permanent(
                    f"an alarm definition named {body['name']!r} already exists and is not this resource's"
                ) from error
            return self.live(same, marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        path = f"{DEFINITIONS}/{physical_id}"
        body = definition_patch(properties, changed)
        return self.live(self.api.patch(path, body, "application/json") if body else self.api.get(path))

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"{DEFINITIONS}/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        return (
            {item["id"]: self.live(item) for item in listed(self.api, DEFINITIONS) if item["id"] in wanted}
            if wanted
            else {}
        )

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        name, description = physical_name(marker), marker_description(marker)
        found = (
            item
            for item in listed(self.api, DEFINITIONS)
            if item.get("name") == name or item.get("description") == description
        )
        item = next(found, None)
        return None if item is None else self.live(item, marker)

    @staticmethod
    def live(body: Mapping[str, Any], marker: Marker | None = None) -> LiveResource:
        return LiveResource(
            physical_id=str(body["id"]),
            type=ALARM_DEFINITION.name,
            status=LiveStatus.READY,
            properties=definition_properties(body),
            attributes={"show": dict(body)},
            marker=marker,
        )
