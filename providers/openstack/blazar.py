"""OS::Blazar::Host and OS::Blazar::Lease: Blazar's reservable hosts and leases, in JSON (bodies
and reading in `providers.catalog.reservation_bodies`).

Blazar keeps no tags or metadata on either, so neither carries a marker. A host is named by its
hypervisor, which can be enrolled once: a create that meets it enrolled adopts it (it is the same
host). A lease's name is unique in the project: a create that meets a lease of the same name and
dates adopts it (a repeat after a crash); any other is a permanent conflict. Every property
replaces either resource, as in Heat. Before a lease Blazar must hold at least one host, as Heat's
validation requires. Observation is one list call per type (Blazar does not page).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.reservation_bodies import (
    NO_HOST,
    host_body,
    host_live,
    lease_body,
    lease_live,
    same_lease,
)
from providers.interface import LiveResource, Marker, NotFound, Permanent, Retryable
from providers.openstack.json_api import JsonApi


@dataclass(frozen=True)
class HostHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        try:
            return host_live(self.api.post("/os-hosts", host_body(properties))["host"])
        except NotFound as error:  # Nova has no hypervisor of that name: no retry will find one
            raise Permanent(str(error)) from error
        except Retryable as error:
            enrolled = [h for h in self._hosts() if h.get("hypervisor_hostname") == properties["name"]]
            if not error.conflict or not enrolled:
                raise
            return host_live(enrolled[0])

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return host_live(self.api.get(f"/os-hosts/{physical_id}")["host"])  # every property replaces

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/os-hosts/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        return {str(h["id"]): host_live(h) for h in self._hosts() if str(h["id"]) in wanted} if wanted else {}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # hosts carry no marker; a repeated create adopts the enrolled host instead

    def _hosts(self) -> list[dict[str, Any]]:
        return list(self.api.get("/os-hosts").get("hosts") or [])


@dataclass(frozen=True)
class LeaseHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        if not self.api.get("/os-hosts").get("hosts"):
            raise Permanent(NO_HOST)
        try:
            return lease_live(self.api.post("/leases", lease_body(properties))["lease"], marker)
        except Retryable as error:
            if not error.conflict:
                raise
            same = [lease for lease in self._leases() if same_lease(lease, properties)]
            if not same:
                raise Permanent(
                    f"a lease named {properties['name']!r} already exists with other dates"
                ) from error
            return lease_live(same[0], marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return lease_live(self.api.get(f"/leases/{physical_id}")["lease"], None)  # every property replaces

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/leases/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {lease["id"]: lease_live(lease, None) for lease in self._leases() if lease["id"] in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # leases carry no marker; a repeated create adopts the lease of its name and dates

    def _leases(self) -> list[dict[str, Any]]:
        return list(self.api.get("/leases").get("leases") or [])
