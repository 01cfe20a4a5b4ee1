"""Neutron routers with their external gateway, and router interfaces (a router's port on a subnet,
at the subnet's gateway address).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.network import (
    ROUTER_INTERFACE_OWNER,
    Neutron,
    Ports,
    external_address,
    merged,
    standard_fields,
)
from providers.simulated.world import CloudWorld


class Routers(Neutron):
    collection = "routers"

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        body = {
            **standard_fields(world, request),
            "status": "ACTIVE",
            "admin_state_up": request.get("admin_state_up", True),
            "distributed": request.get("distributed", False),
            "ha": request.get("ha", False),
            "routes": list(request.get("routes") or ()),
            "external_gateway_info": None,
        }
        return self._with_gateway(world, body, request.get("external_gateway_info"))

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        changes = dict(request)
        gateway = changes.pop("external_gateway_info", body["external_gateway_info"])
        if gateway != body["external_gateway_info"]:
            body = self._with_gateway(world, {**body, "external_gateway_info": None}, gateway)
        return merged(world, body, changes, self.read_only)

    def delete(self, world: CloudWorld, body: Body) -> None:
        for port in world.inventory("ports"):
            if port["device_id"] == body["id"] and port["device_owner"] == ROUTER_INTERFACE_OWNER:
                raise Conflict(f"Router {body['id']} still has ports")

    @staticmethod
    def _with_gateway(world: CloudWorld, body: Body, gateway: Any) -> Body:
        if not gateway:
            return {**body, "external_gateway_info": None}
        network = world.require("networks", str(gateway.get("network_id")), "Network")
        address, subnet_id = external_address(world, network)
        info = {
            "network_id": network["id"],
            "enable_snat": gateway.get("enable_snat", True),
            "external_fixed_ips": [{"subnet_id": subnet_id, "ip_address": address}],
        }
        return {**body, "external_gateway_info": info}


def add_router_interface(world: CloudWorld, router: Body, request: Mapping[str, Any]) -> Body:
    """Neutron's add_router_interface: a port of the router on the subnet (at its gateway)."""
    ports = world.inventory("ports")
    if request.get("port_id"):
        port = world.require("ports", request["port_id"], "Port")
        if port["device_id"]:
            raise Conflict(f"Port {port['id']} is in use by {port['device_id']}")
    else:
        subnet = world.require("subnets", str(request.get("subnet_id")), "Subnet")
        for existing in ports:
            if existing["device_id"] == router["id"] and any(
                fixed["subnet_id"] == subnet["id"] for fixed in existing["fixed_ips"]
            ):
                raise BadRequest(f"Router already has a port on subnet {subnet['id']}.")
        port = Ports().create(
            world,
            {
                "network_id": subnet["network_id"],
                "fixed_ips": [{"subnet_id": subnet["id"], "ip_address": subnet["gateway_ip"]}],
            },
        )
    port = {**port, "device_id": router["id"], "device_owner": ROUTER_INTERFACE_OWNER, "status": "ACTIVE"}
    world.add("ports", port)
    return interface_info(router, port)


def remove_router_interface(world: CloudWorld, router: Body, request: Mapping[str, Any]) -> Body:
    for port in world.inventory("ports").select():
        if port["device_id"] != router["id"] or port["device_owner"] != ROUTER_INTERFACE_OWNER:
            continue
        on_subnet = any(fixed["subnet_id"] == request.get("subnet_id") for fixed in port["fixed_ips"])
        if port["id"] == request.get("port_id") or on_subnet:
            world.inventory("ports").pop(port["id"])
            return interface_info(router, port)
    raise ItemNotFound(f"Router {router['id']} has no interface matching {dict(request)}.")


def interface_info(router: Body, port: Body) -> Body:
    subnets = [fixed["subnet_id"] for fixed in port["fixed_ips"]]
    return {
        "id": router["id"],
        "tenant_id": router["tenant_id"],
        "project_id": router["project_id"],
        "port_id": port["id"],
        "network_id": port["network_id"],
        "subnet_id": subnets[0] if subnets else None,
        "subnet_ids": subnets,
    }


BEHAVIOURS = (Routers(),)
