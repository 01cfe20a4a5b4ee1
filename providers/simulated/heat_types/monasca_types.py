"""OS::Monasca::Notification and AlarmDefinition on the simulated cloud, as the OpenStack provider
speaks them over HTTP (bodies from `providers.catalog.monasca_bodies`): an unnamed item takes the
physical name the marker makes, a definition without a description carries the marker there."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

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
from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict
from providers.simulated.heat_types.adapter import shown
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body


class Notification:
    type_name: ClassVar[str] = NOTIFICATION.name

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self.live(cloud.create("notification_methods", notification_body(properties, marker)), marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = cloud.get("notification_methods", physical_id)
        request = {**notification_body(properties, None), "name": properties.get("name") or current["name"]}
        return self.live(cloud.update("notification_methods", physical_id, request))

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("notification_methods", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {
            body["id"]: self.live(body) for body in cloud.list("notification_methods", ids=list(physical_ids))
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = cloud.list("notification_methods", where={"name": physical_name(marker)})
        return self.live(found[0], marker) if found else None

    def live(self, body: Body, marker: Marker | None = None) -> LiveResource:
        properties = notification_properties(body)
        return LiveResource(
            body["id"], self.type_name, LiveStatus.READY, properties, {"show": shown(body)}, marker
        )


class AlarmDefinition:
    type_name: ClassVar[str] = ALARM_DEFINITION.name

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = definition_body(properties, marker)
        try:
            return self.live(cloud.create("alarm_definitions", request), marker)
        except Conflict as error:
            same = [body for body in cloud.list("alarm_definitions") if is_same(body, request)]
            if not same:
                raise Permanent(
                    f"an alarm definition named {request['name']!r} already exists and is not this resource's"
                ) from error
            return self.live(same[0], marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        request = definition_patch(properties, changed)
        body = (
            cloud.update("alarm_definitions", physical_id, request)
            if request
            else cloud.get("alarm_definitions", physical_id)
        )
        return self.live(body)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("alarm_definitions", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {
            body["id"]: self.live(body) for body in cloud.list("alarm_definitions", ids=list(physical_ids))
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        name, description = physical_name(marker), marker_description(marker)
        found = [
            body
            for body in cloud.list("alarm_definitions")
            if body.get("name") == name or body.get("description") == description
        ]
        return self.live(found[0], marker) if found else None

    def live(self, body: Body, marker: Marker | None = None) -> LiveResource:
        properties = definition_properties(body)
        return LiveResource(
            body["id"], self.type_name, LiveStatus.READY, properties, {"show": shown(body)}, marker
        )


TYPES = (Notification, AlarmDefinition)
