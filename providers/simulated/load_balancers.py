"""Octavia's load balancers, with their VIP port in the simulated Neutron, and Octavia's flavors.

A load balancer's VIP is a Neutron port the cloud makes on the VIP subnet (or the first subnet of
the VIP network), named `octavia-lb-<id>` and owned by "Octavia"; it holds the VIP address and goes
with the load balancer. A VIP port the request names is used as it is and left behind. Deleting a
load balancer that still has listeners or pools is refused unless the request cascades; a cascade
removes the whole tree. Flavors are synchronous (no provisioning status); one flavor profile is
seeded, as an operator would have made it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated import network
from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.lb_lifecycle import (
    ACTIVE,
    LOAD_BALANCERS,
    OCTAVIA_BUILDING,
    OCTAVIA_QUOTA_STATUS,
    STATUS,
    immutable,
    removed_children,
    updated,
)
from providers.simulated.world import Building, CloudWorld

VIP_OWNER = "Octavia"
FLAVORS, FLAVOR_PROFILES = "lb_flavors", "lb_flavor_profiles"
SEEDED_PROFILE = {
    "id": "6f1e5b8a-2c4d-4e3f-9a1b-7c6d5e4f3a21",
    "name": "amphora-single",
    "provider_name": "amphora",
    "flavor_data": '{"loadbalancer_topology": "SINGLE"}',
}
LB_UPDATABLE = frozenset({"name", "description", "admin_state_up", "tags", "vip_qos_policy_id"})
FLAVOR_UPDATABLE = frozenset({"name", "description", "enabled"})


def octavia_fields(world: CloudWorld, request: Mapping[str, Any], item_id: str | None = None) -> Body:
    """What every object of a load balancer's tree carries."""
    project = world.settings.project_id
    now = world.timestamp()
    return {
        "id": item_id or world.new_id(),
        "name": request.get("name") or "",
        "description": request.get("description") or "",
        "admin_state_up": request.get("admin_state_up", True),
        "project_id": project,
        "tenant_id": project,
        STATUS: OCTAVIA_BUILDING.building,
        "operating_status": "OFFLINE",
        "tags": list(request.get("tags") or ()),
        "created_at": now,
        "updated_at": None,
    }


def refused_keys(request: Mapping[str, Any], allowed: frozenset[str]) -> None:
    refused = sorted(set(request) - allowed)
    if refused:
        raise BadRequest(f"Invalid input for field/attribute {refused[0]}. The field cannot be updated.")


class LoadBalancers:
    collection = LOAD_BALANCERS
    quota_status = OCTAVIA_QUOTA_STATUS
    building: Building | None = OCTAVIA_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        if not (request.get("vip_subnet_id") or request.get("vip_network_id") or request.get("vip_port_id")):
            raise BadRequest(
                "Validation failure: VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id."
            )
        flavor_id = request.get("flavor_id")
        if flavor_id:
            flavor = world.inventory(FLAVORS).get(flavor_id)
            if flavor is None or not flavor["enabled"]:
                raise BadRequest(f"Validation failure: Invalid flavor_id {flavor_id}.")
        lb_id = world.new_id()
        port, owned = vip_port(world, lb_id, request)
        fixed = port["fixed_ips"][0] if port["fixed_ips"] else {"subnet_id": None, "ip_address": None}
        return {
            **octavia_fields(world, request, lb_id),
            "vip_address": fixed["ip_address"],
            "vip_port_id": port["id"],
            "vip_subnet_id": fixed["subnet_id"],
            "vip_network_id": port["network_id"],
            "vip_qos_policy_id": request.get("vip_qos_policy_id"),
            "provider": request.get("provider") or "amphora",
            "flavor_id": flavor_id,
            "availability_zone": request.get("availability_zone"),
            "listeners": [],
            "pools": [],
            "_owns_vip_port": owned,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        refused_keys(request, LB_UPDATABLE)
        if body[STATUS] != ACTIVE:
            raise immutable("Load Balancer", body["id"])
        return updated(world, self.collection, body, request)

    def load_balancer_of(self, world: CloudWorld, body: Body) -> str:
        return str(body["id"])

    def check_delete(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> None:
        if body[STATUS] not in (ACTIVE, "ERROR"):
            raise immutable("Load Balancer", body["id"])
        if (body["listeners"] or body["pools"]) and not request.get("cascade"):
            raise BadRequest(
                f"Validation failure: Cannot delete Load Balancer {body['id']} - it has children"
            )

    def delete(self, world: CloudWorld, body: Body) -> None:
        removed_children(world, "listeners", body["listeners"])
        removed_children(world, "pools", body["pools"])
        port = world.inventory("ports").get(body["vip_port_id"])
        if port is not None and body.get("_owns_vip_port"):
            network.Ports().delete(world, port)


def vip_port(world: CloudWorld, lb_id: str, request: Mapping[str, Any]) -> tuple[Body, bool]:
    """The VIP port (made here unless the request names one) and whether the load balancer owns it."""
    if request.get("vip_port_id"):
        return world.require("ports", str(request["vip_port_id"]), "Port"), False
    subnet_id = request.get("vip_subnet_id")
    if subnet_id:
        subnet = world.inventory("subnets").get(str(subnet_id))
        if subnet is None:
            raise BadRequest(f"Validation failure: Subnet {subnet_id} not found.")
        network_id = subnet["network_id"]
    else:
        network_id = str(request.get("vip_network_id"))
        found = world.inventory("networks").get(network_id)
        if found is None:
            raise BadRequest(f"Validation failure: Network {network_id} not found.")
        if not found["subnets"]:
            raise BadRequest(f"Validation failure: Supplied network does not contain a subnet: {network_id}")
        subnet_id = found["subnets"][0]
    wanted: dict[str, str] = {"subnet_id": str(subnet_id)}
    if request.get("vip_address"):
        wanted["ip_address"] = str(request["vip_address"])
    port_request = {
        "network_id": network_id,
        "fixed_ips": [wanted],
        "name": f"octavia-lb-{lb_id}",
        "device_owner": VIP_OWNER,
        "device_id": lb_id,
    }
    port = world.add("ports", network.Ports().create(world, port_request))
    return port, True


class LoadBalancerFlavors:
    """Octavia's flavors: a name, a flavor profile, enabled or not; unique names, no status."""

    collection = FLAVORS
    quota_status = OCTAVIA_QUOTA_STATUS
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not name:
            raise BadRequest(
                "Invalid input for field/attribute name. Value: 'None'. Mandatory field missing."
            )
        if world.inventory(FLAVORS).select(name=str(name)):
            raise Conflict(f"A flavor of {name} already exists.")
        profile_id = request.get("flavor_profile_id")
        if not profile_id or profile_id not in world.inventory(FLAVOR_PROFILES):
            raise BadRequest(f"Validation failure: Invalid flavor_profile_id {profile_id}.")
        return {
            "id": world.new_id(),
            "name": name,
            "description": request.get("description") or "",
            "enabled": request.get("enabled", True),
            "flavor_profile_id": profile_id,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        refused_keys(request, FLAVOR_UPDATABLE)
        name = request.get("name")
        if name and name != body["name"] and world.inventory(FLAVORS).select(name=str(name)):
            raise Conflict(f"A flavor of {name} already exists.")
        return {**body, **request}

    def delete(self, world: CloudWorld, body: Body) -> None:
        if any(lb.get("flavor_id") == body["id"] for lb in world.inventory(LOAD_BALANCERS)):
            raise Conflict(f"Flavor {body['id']} is in use and cannot be modified.")


class LoadBalancerFlavorProfiles:
    """Flavor profiles: seeded, read only."""

    collection = FLAVOR_PROFILES
    quota_status = OCTAVIA_QUOTA_STATUS
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        return {**SEEDED_PROFILE, **request}

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        raise BadRequest("Flavor profiles of this cloud cannot be changed.")

    def delete(self, world: CloudWorld, body: Body) -> None:
        raise BadRequest("Flavor profiles of this cloud cannot be deleted.")


def seed_flavor_profile(world: CloudWorld) -> None:
    world.add(FLAVOR_PROFILES, dict(SEEDED_PROFILE))
