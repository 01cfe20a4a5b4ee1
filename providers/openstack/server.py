"""OS::Nova::Server: one `POST /servers` per create; completion seen from the shared list.

A create returns as soon as Nova accepted the server (status BUILD, IN_PROGRESS); the engine sees
it become ACTIVE from an observe pass, where one paged `GET /servers/detail` answers for every
server at once. A `networks` entry naming a subnet gets a port made for it first
(`server_ports.py`), deleted with the server. Updates are in `server_update.py`; a resize Nova holds
in VERIFY_RESIZE is confirmed by the observe pass that sees it, as Heat confirms its own resizes.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker
from providers.marker_text import NOVA_TAG
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import MANAGED_TAG, carries_marker_metadata, marker_tag
from providers.openstack.server_body import server_create_body
from providers.openstack.server_live import SERVER_TYPE, is_gone, live_server
from providers.openstack.server_ports import delete_internal_port, internal_ports_of, with_internal_ports
from providers.openstack.server_update import update_server


@dataclass(frozen=True)
class ServerHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        networks = with_internal_ports(
            self.apis, properties.get("networks") or [], marker, properties.get("security_groups") or []
        )
        body = server_create_body({**properties, "networks": networks}, marker, self.apis.names)
        created = self.apis.compute.post("/servers", body)["server"]
        return LiveResource(
            physical_id=created["id"],
            type=SERVER_TYPE,
            status=LiveStatus.IN_PROGRESS,
            status_reason="BUILD",
            marker=marker,
        )

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        update_server(self.apis, physical_id, properties, changed)
        return self.show(physical_id)

    def delete(self, physical_id: str) -> None:
        """The server, then the ports it made for itself (Nova keeps ports it was handed)."""
        owned = internal_ports_of(self.apis, physical_id)
        self.apis.compute.delete(f"/servers/{physical_id}")
        for port_id in owned:
            delete_internal_port(self.apis, port_id)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        """One paged list of this provider's servers (the managed tag); only when some wanted id is
        not among them (its tags were stripped, or it is really gone) the whole project's list."""
        wanted = set(physical_ids)
        seen = self.listed(wanted, {"tags": MANAGED_TAG})
        if wanted - seen.keys():
            seen.update(self.listed(wanted - seen.keys(), {}))
        for server_id, server in seen.items():
            if server.get("status") == "VERIFY_RESIZE":
                self.apis.compute.post(f"/servers/{server_id}/action", {"confirmResize": None})
        return {server_id: live_server(server, self.apis.names) for server_id, server in seen.items()}

    def listed(self, wanted: set[str], query: Mapping[str, str]) -> dict[str, dict[str, Any]]:
        if not wanted:
            return {}
        return {
            server["id"]: server
            for server in self.apis.compute.list_all("/servers/detail", "servers", query)
            if server["id"] in wanted and not is_gone(server)
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        """The server whose marker tag (a digest when Nova could not keep it) and metadata entry
        are the ones `marker` writes."""
        query = {"tags": marker_tag(marker, NOVA_TAG)}
        for server in self.apis.compute.list_all("/servers/detail", "servers", query):
            if carries_marker_metadata(server.get("metadata") or {}, marker) and not is_gone(server):
                return replace(live_server(server, self.apis.names), marker=marker)
        return None

    def show(self, physical_id: str) -> LiveResource:
        return live_server(self.apis.compute.get(f"/servers/{physical_id}")["server"], self.apis.names)
