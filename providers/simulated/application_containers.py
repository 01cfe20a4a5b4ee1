"""Zun's containers (container v1): a container is Creating until the image is pulled and it is
started, then Running; one made with `run: false` would stop at Created, which is not modelled
(every container here is run, as Heat asks). Each network entry (`nets`) gets a Neutron port on
that network, bound to the container as Kuryr binds it, so a floating IP can be associated with
the port; the ports go with the container. `addresses` are keyed by network id, as Zun shows them.
Security groups are checked to exist. Only the name, cpu and memory change in place (Zun's PATCH).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body
from providers.simulated.network import Ports, address_entry
from providers.simulated.world import Building, CloudWorld

COLLECTION = "application_containers"  # Zun's, apart from Swift's containers
PORT_OWNER = "compute:kuryr"
PULL_POLICIES = ("ifnotpresent", "always", "never")
PATCHABLE = ("name", "cpu", "memory")


def resolved_group(world: CloudWorld, group: Any) -> str:
    """A security group id from its id or name (Zun takes either)."""
    inventory = world.inventory("security_groups")
    if inventory.get(str(group)) is not None:
        return str(group)
    named = inventory.select(name=str(group))
    if len(named) != 1:
        raise BadRequest(f"Security group {group} not found or not unique.")
    return str(named[0]["id"])


def resolved_network(world: CloudWorld, network: Any) -> Body:
    inventory = world.inventory("networks")
    found = inventory.get(str(network))
    if found is not None:
        return found
    named = inventory.select(name=str(network))
    if len(named) != 1:
        raise BadRequest(f"Network {network} not found or not unique.")
    return named[0]


class Containers:
    collection = COLLECTION
    quota_status = 403
    building: Building | None = Building("Creating", "Running", "Error", on_ready={"status_reason": None})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        if not isinstance(request.get("image"), str) or not request["image"]:
            raise BadRequest("Invalid input for field/attribute image. Value: None. Mandatory field missing.")
        policy = request.get("image_pull_policy")
        if policy is not None and policy not in PULL_POLICIES:
            raise BadRequest(f"Invalid input for field/attribute image_pull_policy. Value: {policy}.")
        container_id = world.new_id()
        groups = [resolved_group(world, group) for group in request.get("security_groups") or ()]
        ports = [self._port(world, container_id, wanted, groups) for wanted in request.get("nets") or ()]
        return {
            "uuid": container_id,
            "id": container_id,
            "name": request.get("name") or f"zun-{container_id[:8]}",
            "image": request["image"],
            "command": request.get("command"),
            "cpu": request.get("cpu"),
            "memory": request.get("memory"),
            "environment": dict(request.get("environment") or {}),
            "workdir": request.get("workdir"),
            "labels": dict(request.get("labels") or {}),
            "image_pull_policy": policy,
            "restart_policy": request.get("restart_policy"),
            "interactive": bool(request.get("interactive")),
            "tty": bool(request.get("tty")),
            "image_driver": request.get("image_driver") or "docker",
            "hostname": request.get("hostname"),
            "security_groups": groups,
            "addresses": self._addresses(world, ports),
            "status": "Creating",
            "status_reason": None,
            "task_state": None,
            "created_at": world.timestamp(),
            "_ports": [port["id"] for port in ports],
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        unknown = set(request) - set(PATCHABLE)
        if unknown:
            raise BadRequest(f"Additional properties are not allowed ({', '.join(sorted(unknown))}).")
        return {**body, **request}

    def delete(self, world: CloudWorld, body: Body) -> None:
        ports = world.inventory("ports")
        for port_id in body["_ports"]:
            port = ports.get(port_id)
            if port is not None:
                world.remove("ports", port_id)

    @staticmethod
    def _port(world: CloudWorld, container_id: str, wanted: Mapping[str, Any], groups: list[str]) -> Body:
        network = resolved_network(world, wanted.get("network"))
        fixed = [
            {"ip_address": wanted[key]} for key in ("v4-fixed-ip", "v6-fixed-ip") if wanted.get(key)
        ] or None
        request = {"network_id": network["id"], "fixed_ips": fixed, "security_groups": groups}
        port = Ports().create(world, request)
        port = {**port, "device_id": container_id, "device_owner": PORT_OWNER, "status": "ACTIVE"}
        return world.add("ports", port)

    @staticmethod
    def _addresses(world: CloudWorld, ports: list[Body]) -> dict[str, list[dict[str, Any]]]:
        addresses: dict[str, list[dict[str, Any]]] = {}
        for port in ports:
            for fixed in port["fixed_ips"]:
                entry = address_entry(fixed["ip_address"], "fixed", port["mac_address"])
                shown = {"addr": entry["addr"], "version": entry["version"], "port": port["id"]}
                shown.update(subnet_id=fixed.get("subnet_id"), preserve_on_delete=False)
                addresses.setdefault(port["network_id"], []).append(shown)
        return addresses


def network_attach(world: CloudWorld, body: Body, action: str, request: Mapping[str, Any]) -> Body:
    """Zun's network_attach (a new port on the network) and network_detach (its ports removed)."""
    network = resolved_network(world, request.get("network"))
    if action == "network_attach":
        port = Containers._port(world, body["id"], {"network": network["id"]}, body["security_groups"])
        ports = [*body["_ports"], port["id"]]
    else:
        if network["id"] not in body["addresses"]:
            raise BadRequest(f"Container {body['uuid']} is not connected to network {network['id']}.")
        inventory = world.inventory("ports")
        gone = [
            port_id
            for port_id in body["_ports"]
            if (inventory.get(port_id) or {}).get("network_id") == network["id"]
        ]
        for port_id in gone:
            world.remove("ports", port_id)
        ports = [port_id for port_id in body["_ports"] if port_id not in gone]
    bound = [world.require("ports", port_id) for port_id in ports]
    return {**body, "_ports": ports, "addresses": Containers._addresses(world, bound)}


NETWORK_ACTIONS = ("network_attach", "network_detach")
BEHAVIOURS = (Containers(),)
