"""OS::Blazar::Host and OS::Blazar::Lease on the simulated cloud, as the OpenStack provider speaks
them over HTTP (`providers.catalog.reservation_bodies`): no markers, an enrolled host adopted, a
lease of the same name and dates adopted, a lease refused while no host is enrolled."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.catalog.reservation_bodies import (
    NO_HOST,
    host_body,
    host_live,
    lease_body,
    lease_live,
    same_lease,
)
from providers.interface import LiveResource, Marker, Permanent
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict, ItemNotFound
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body
from providers.simulated.reservations import host_shown, shown


class Host:
    type_name: ClassVar[str] = "OS::Blazar::Host"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        try:
            return host_live(host_shown(cloud.create("reservable_hosts", host_body(properties))))
        except ItemNotFound as error:  # Nova has no hypervisor of that name: no retry will find one
            raise Permanent(error.message) from error
        except Conflict:
            return host_live(host_shown(cloud.list("reservable_hosts", name=str(properties["name"]))[0]))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return host_live(host_shown(cloud.get("reservable_hosts", physical_id)))  # every property replaces

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("reservable_hosts", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {
            body["id"]: host_live(host_shown(body))
            for body in cloud.list("reservable_hosts", ids=list(physical_ids))
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None


class Lease:
    type_name: ClassVar[str] = "OS::Blazar::Lease"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        if not cloud.list("reservable_hosts"):
            raise Permanent(NO_HOST)
        try:
            return self._live(cloud, cloud.create("leases", lease_body(properties)), marker)
        except Conflict as error:
            same = [body for body in cloud.list("leases") if same_lease(body, properties)]
            if not same:
                raise Permanent(
                    f"a lease named {properties['name']!r} already exists with other dates"
                ) from error
            return self._live(cloud, same[0], marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return self._live(cloud, cloud.get("leases", physical_id), None)  # every property replaces

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("leases", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {
            body["id"]: self._live(cloud, body, None) for body in cloud.list("leases", ids=list(physical_ids))
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None

    @staticmethod
    def _live(cloud: SimulatedCloud, body: Body, marker: Marker | None) -> LiveResource:
        return lease_live(shown(body, cloud.clock()), marker)


TYPES = (Host, Lease)
