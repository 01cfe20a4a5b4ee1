"""Neutron floating IPs: an address of an external network, associated with a port (and through it,
shown in a server's addresses)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body
from providers.simulated.network import (
    Neutron,
    disassociated,
    external_address,
    merged,
    refresh_server_addresses,
    standard_fields,
)
from providers.simulated.world import CloudWorld


class FloatingIPs(Neutron):
    collection = "floatingips"
    read_only = frozenset({"floating_network_id", "floating_ip_address"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        network = world.require("networks", str(request.get("floating_network_id")), "Network")
        address, _ = external_address(world, network)
        fields = standard_fields(world, request)
        del fields["name"]
        body = {
            **fields,
            "floating_network_id": network["id"],
            "floating_ip_address": request.get("floating_ip_address") or address,
            "dns_name": request.get("dns_name", ""),
            "dns_domain": request.get("dns_domain", ""),
            **disassociated({}),
        }
        return self._associate(world, body, request)

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        changes = dict(request)
        if "port_id" in changes:
            previous_port = body["port_id"]
            body = disassociated(body)
            world.add("floatingips", body)
            if previous_port:
                self._refresh(world, previous_port)
            body = self._associate(world, body, changes)
            changes.pop("port_id")
            changes.pop("fixed_ip_address", None)
        return merged(world, body, changes, self.read_only)

    def delete(self, world: CloudWorld, body: Body) -> None:
        if body["port_id"]:
            world.inventory("floatingips").pop(body["id"])
            self._refresh(world, body["port_id"])

    @staticmethod
    def _refresh(world: CloudWorld, port_id: str) -> None:
        port = world.inventory("ports").get(port_id)
        if port is not None:
            refresh_server_addresses(world, port["device_id"])

    def _associate(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        port_id = request.get("port_id")
        if not port_id:
            return body
        port = world.require("ports", port_id, "Port")
        if not port["fixed_ips"]:
            raise BadRequest(f"Port {port_id} does not have any fixed IP addresses.")
        router_id = next(
            (
                router["id"]
                for router in world.inventory("routers")
                if (router["external_gateway_info"] or {}).get("network_id") == body["floating_network_id"]
            ),
            None,
        )
        associated = {
            **body,
            "port_id": port_id,
            "fixed_ip_address": request.get("fixed_ip_address") or port["fixed_ips"][0]["ip_address"],
            "router_id": router_id,
            "status": "ACTIVE",
        }
        world.add("floatingips", associated)
        self._refresh(world, port_id)
        return associated


BEHAVIOURS = (FloatingIPs(),)
