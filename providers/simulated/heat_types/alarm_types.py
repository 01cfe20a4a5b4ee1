"""The Aodh alarm types on the simulated cloud, with no HTTP between: bodies as
`providers.catalog.alarm_bodies` writes them, stored in the cloud's `alarms` collection.

Alarms hold no tags; each is named after its marker (stack-resource-record), unique per project,
so `find_by_marker` is a lookup by that name and a create that meets it adopts the alarm.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.catalog.alarm_bodies import alarm_body, alarm_properties
from providers.interface import LiveResource, LiveStatus, Marker
from providers.marker_text import bounded_name
from providers.simulated import alarms
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict
from providers.simulated.heat_types.adapter import pages
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body


def alarm_name(marker: Marker) -> str:
    return bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id[:12]}")


class AlarmType:
    type_name: ClassVar[str] = ""

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        try:
            body = cloud.create("alarms", alarm_body(self.type_name, properties, alarm_name(marker)))
        except Conflict:
            adopted = self.find_by_marker(cloud, marker)
            if adopted is None:
                raise
            return adopted
        return self.live(body, marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        name = cloud.get("alarms", physical_id)["name"]
        return self.live(cloud.update("alarms", physical_id, alarm_body(self.type_name, properties, name)))

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("alarms", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {
            body["id"]: self.live(body)
            for page in pages(physical_ids)
            for body in cloud.list("alarms", ids=page)
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = cloud.list("alarms", name=alarm_name(marker))
        return self.live(found[0], marker) if found else None

    def live(self, body: Body, marker: Marker | None = None) -> LiveResource:
        shown = alarms.shown(body)
        return LiveResource(
            physical_id=body["id"],
            type=self.type_name,
            status=LiveStatus.READY,
            properties=alarm_properties(self.type_name, shown),
            attributes={"alarm_id": body["id"], "state": body.get("state"), "show": shown},
            marker=marker,
        )


class ThresholdAlarm(AlarmType):
    type_name = "OS::Aodh::Alarm"


class GnocchiResourcesAlarm(AlarmType):
    type_name = "OS::Aodh::GnocchiResourcesAlarm"


class GnocchiAggregationByMetricsAlarm(AlarmType):
    type_name = "OS::Aodh::GnocchiAggregationByMetricsAlarm"


class GnocchiAggregationByResourcesAlarm(AlarmType):
    type_name = "OS::Aodh::GnocchiAggregationByResourcesAlarm"


class EventAlarm(AlarmType):
    type_name = "OS::Aodh::EventAlarm"


class CompositeAlarm(AlarmType):
    type_name = "OS::Aodh::CompositeAlarm"


TYPES = (
    ThresholdAlarm,
    GnocchiResourcesAlarm,
    GnocchiAggregationByMetricsAlarm,
    GnocchiAggregationByResourcesAlarm,
    EventAlarm,
    CompositeAlarm,
)
