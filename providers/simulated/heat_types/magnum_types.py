"""OS::Magnum::ClusterTemplate and Cluster on the simulated cloud, as the OpenStack provider speaks
them over HTTP (bodies from `providers.catalog.magnum_bodies`): the marker a label, the uuid the
physical id, a change a set of replaced fields."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

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
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.adapter import shown
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body


class MagnumCollection:
    type_name: ClassVar[str] = ""
    collection: ClassVar[str] = ""
    fields: ClassVar[Mapping[str, str]] = {}

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self.live(cloud.create(self.collection, request_body(properties, self.fields, marker)), marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = cloud.get(self.collection, physical_id)
        operations = patch(properties, changed, self.fields, current.get("labels") or {})
        request = {op["path"][1:]: op.get("value") for op in operations}
        return self.live(cloud.update(self.collection, physical_id, request) if request else current)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete(self.collection, physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {body["uuid"]: self.live(body) for body in cloud.list(self.collection, ids=list(physical_ids))}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = [body for body in cloud.list(self.collection) if carries(body, marker)]
        return self.live(found[0], marker) if found else None

    def live(self, body: Body, marker: Marker | None = None) -> LiveResource:
        raise NotImplementedError


class ClusterTemplate(MagnumCollection):
    type_name: ClassVar[str] = CLUSTER_TEMPLATE.name
    collection: ClassVar[str] = "clustertemplates"
    fields: ClassVar[Mapping[str, str]] = TEMPLATE_FIELDS

    def live(self, body: Body, marker: Marker | None = None) -> LiveResource:
        properties = live_properties(body, self.fields, CLUSTER_TEMPLATE.properties)
        return LiveResource(
            body["uuid"], self.type_name, LiveStatus.READY, properties, {"show": shown(body)}, marker
        )


class Cluster(MagnumCollection):
    type_name: ClassVar[str] = CLUSTER.name
    collection: ClassVar[str] = "clusters"
    fields: ClassVar[Mapping[str, str]] = CLUSTER_FIELDS

    def live(self, body: Body, marker: Marker | None = None) -> LiveResource:
        status = cluster_status(body)
        reason = f"cluster {body.get('name')} is {body.get('status')}" if status is LiveStatus.FAILED else ""
        return LiveResource(
            physical_id=body["uuid"],
            type=self.type_name,
            status=status,
            properties=live_properties(body, self.fields, CLUSTER.properties),
            attributes={**cluster_attributes(body), "show": shown(body)},
            marker=marker,
            status_reason=reason,
        )


TYPES = (ClusterTemplate, Cluster)
