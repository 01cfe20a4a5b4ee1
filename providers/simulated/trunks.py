"""Neutron's trunks: a parent port carrying sub-ports, each tagged with a VLAN segmentation id.

A port is the parent of at most one trunk and a sub-port of at most one; a segmentation id is used
once per trunk; a port that is a trunk's parent or sub-port cannot be deleted, as Neutron refuses.
A trunk is ACTIVE at once, like the other simulated Neutron collections; one whose parent port is
bound to a server cannot be deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.network import Neutron, standard_fields
from providers.simulated.world import CloudWorld

SEGMENTATION_TYPES = ("vlan", "inherit")
VLAN_IDS = range(1, 4095)


class Trunks(Neutron):
    collection = "trunks"
    read_only = frozenset({"port_id", "sub_ports"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        port_id = request.get("port_id")
        if not port_id:
            raise BadRequest("Invalid input for port_id. Reason: 'None' is not a valid UUID.")
        parent = world.require("ports", str(port_id), "Port")
        if _trunk_holding(world, parent["id"]) is not None:
            raise Conflict(
                f"Port {parent['id']} is currently in use and is not eligible for use as a parent port."
            )
        body = {
            **standard_fields(world, request),
            "port_id": parent["id"],
            "admin_state_up": bool(request.get("admin_state_up", True)),
            "status": "ACTIVE",
            "sub_ports": [],
        }
        return {**body, "sub_ports": _checked_sub_ports(world, body, request.get("sub_ports") or [])}

    def delete(self, world: CloudWorld, body: Body) -> None:
        parent = world.inventory("ports").get(body["port_id"])
        if parent is not None and parent.get("device_id"):
            raise Conflict(f"Trunk {body['id']} is currently in use.")


def trunk_action(world: CloudWorld, body: Body, action: str, request: Mapping[str, Any]) -> Body:
    """Add sub-ports to a trunk, or remove them by port id."""
    wanted = request.get("sub_ports")
    if not isinstance(wanted, list):
        raise BadRequest("Invalid input for sub_ports: a list is expected.")
    if action == "add_subports":
        return {**body, "sub_ports": [*body["sub_ports"], *_checked_sub_ports(world, body, wanted)]}
    removed = {str(entry.get("port_id")) for entry in wanted}
    held = {entry["port_id"] for entry in body["sub_ports"]}
    missing = sorted(removed - held)
    if missing:
        raise ItemNotFound(f"SubPort(s) {', '.join(missing)} could not be found in trunk {body['id']}.")
    return {**body, "sub_ports": [entry for entry in body["sub_ports"] if entry["port_id"] not in removed]}


def _checked_sub_ports(world: CloudWorld, trunk: Body, wanted: list[Any]) -> list[dict[str, Any]]:
    used_ids = {entry["segmentation_id"] for entry in trunk["sub_ports"]}
    checked = []
    for entry in wanted:
        port = world.require("ports", str(entry.get("port_id")), "Port")
        if port["id"] == trunk["port_id"] or _trunk_holding(world, port["id"]) is not None:
            raise Conflict(f"Port {port['id']} is currently in use and is not eligible for use as a subport.")
        kind = entry.get("segmentation_type", "vlan")
        if kind not in SEGMENTATION_TYPES:
            raise BadRequest(
                f"Invalid input for segmentation_type. Reason: {kind!r} is not in {SEGMENTATION_TYPES}."
            )
        segment = entry.get("segmentation_id")
        if kind == "vlan" and (not isinstance(segment, int) or segment not in VLAN_IDS):
            raise BadRequest(f"Invalid input for segmentation_id. Reason: {segment!r} is not in [1, 4094].")
        if segment in used_ids:
            raise Conflict(f"Segmentation ID {segment} of type {kind} is in use on trunk {trunk['id']}.")
        used_ids.add(segment)
        checked.append({"port_id": port["id"], "segmentation_type": kind, "segmentation_id": segment})
    return checked


def _trunk_holding(world: CloudWorld, port_id: str) -> Body | None:
    for trunk in world.inventory("trunks"):
        if trunk["port_id"] == port_id or any(entry["port_id"] == port_id for entry in trunk["sub_ports"]):
            return trunk
    return None


def refuse_trunk_port_deletion(world: CloudWorld, port: Body) -> None:
    """Neutron keeps a port that a trunk holds."""
    trunk = _trunk_holding(world, port["id"])
    if trunk is None:
        return
    role = "a parent port" if trunk["port_id"] == port["id"] else "a subport"
    raise Conflict(f"Port {port['id']} is currently {role} for trunk {trunk['id']}.")


BEHAVIOURS = (Trunks(),)
TRUNK_ACTIONS = ("add_subports", "remove_subports")
