"""OS::Nova::Quota, OS::Neutron::Quota and OS::Cinder::Quota on the simulated cloud: a project's
limits in one service, its physical id the project's id, as the OpenStack provider serves them.
Setting them is idempotent, so there is no marker to find; deleting reverts to the defaults.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import ItemNotFound
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.quota_sets import COMPUTE_QUOTAS, NETWORK_QUOTAS, VOLUME_QUOTAS, QuotaSets


class Quota:
    type_name: ClassVar[str] = ""
    quotas: ClassVar[QuotaSets]

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        project = self.resolver.id_of("projects", str(properties["project"]), "Project")
        return self.update(cloud, project, properties, frozenset())

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        limits = {
            name: value for name, value in properties.items() if name != "project" and value is not None
        }
        collection = self.quotas.collection
        if cloud.list(collection, ids=[physical_id]):
            body = cloud.update(collection, physical_id, limits)
        else:
            body = cloud.create(collection, {**limits, "id": physical_id})
        return self._live(physical_id, body)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        try:
            cloud.delete(self.quotas.collection, physical_id)
        except ItemNotFound:
            return  # a project on the defaults already

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        found = {body["id"]: body for body in cloud.list(self.quotas.collection, ids=list(physical_ids))}
        return {project: self._live(project, found.get(project)) for project in physical_ids}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None

    def _live(self, project: str, body: Mapping[str, Any] | None) -> LiveResource:
        shown = self.quotas.shown(project, dict(body) if body else None)
        properties = {"project": project, **{key: value for key, value in shown.items() if key != "id"}}
        return LiveResource(project, self.type_name, LiveStatus.READY, properties, {"show": shown})


class NovaQuota(Quota):
    type_name = "OS::Nova::Quota"
    quotas = COMPUTE_QUOTAS


class NeutronQuota(Quota):
    type_name = "OS::Neutron::Quota"
    quotas = NETWORK_QUOTAS


class CinderQuota(Quota):
    type_name = "OS::Cinder::Quota"
    quotas = VOLUME_QUOTAS


TYPES = (NovaQuota, NeutronQuota, CinderQuota)
