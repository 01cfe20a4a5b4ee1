"""Nova's collections: servers (BUILD -> ACTIVE), key pairs, server groups, flavors, and the
volume attachments of servers. Server bodies carry the fields Nova shows at a recent microversion
(tags, embedded flavor details); `_ports` and `_created_ports` are internal bookkeeping.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.flavors import Flavors
from providers.simulated.inventory import Body
from providers.simulated.network import Ports, addresses_of, refresh_server_addresses
from providers.simulated.world import Building, CloudWorld

NOVA_QUOTA_STATUS = 403
SERVER_BUILDING = Building(building="BUILD", ready="ACTIVE", error="ERROR")
SERVER_UPDATABLE = frozenset({"name", "description", "accessIPv4", "accessIPv6"})


class Nova:
    collection = ""
    quota_status = NOVA_QUOTA_STATUS
    building: Building | None = None

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        raise BadRequest(f"{self.collection} cannot be updated.")

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


def flavor_details(flavor: Body) -> Body:
    """The flavor as a server embeds it since microversion 2.47."""
    return {
        "original_name": flavor["name"],
        "vcpus": flavor["vcpus"],
        "ram": flavor["ram"],
        "disk": flavor["disk"],
        "ephemeral": flavor["OS-FLV-EXT-DATA:ephemeral"],
        "swap": flavor["swap"],
        "extra_specs": flavor["extra_specs"],
    }


class Servers(Nova):
    collection = "servers"
    building: Building | None = SERVER_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        if not request.get("name"):
            raise BadRequest("Invalid input for field/attribute server: 'name' is a required property")
        flavor = world.inventory("flavors").get(str(request.get("flavorRef")))
        if flavor is None:
            raise BadRequest(f"Flavor {request.get('flavorRef')} could not be found.")
        image = self._image(world, request)
        key_name = request.get("key_name")
        if key_name and key_name not in world.inventory("keypairs"):
            raise BadRequest("Invalid key_name provided.")
        groups = self._security_group_ids(world, request.get("security_groups") or ())
        server_id = world.new_id()
        volumes = self._boot_volumes(world, request.get("block_device_mapping_v2") or ())
        ports, created = self._ports(world, server_id, request.get("networks"), groups)
        now = world.timestamp()
        body = {
            "id": server_id,
            "name": request["name"],
            "status": SERVER_BUILDING.building,
            "tenant_id": world.settings.project_id,
            "user_id": world.settings.user_id,
            "metadata": dict(request.get("metadata") or {}),
            "tags": list(request.get("tags") or ()),
            "flavor": flavor_details(flavor),
            "_flavor_id": flavor["id"],
            "image": {"id": image} if image else "",
            "key_name": key_name,
            "security_groups": [{"name": name} for name in self._group_names(world, groups)],
            "addresses": addresses_of(world, ports),
            "accessIPv4": request.get("accessIPv4", ""),
            "accessIPv6": request.get("accessIPv6", ""),
            "config_drive": "True" if request.get("config_drive") else "",
            "OS-EXT-AZ:availability_zone": request.get("availability_zone") or "nova",
            "OS-EXT-STS:vm_state": "building",
            "OS-EXT-STS:task_state": "scheduling",
            "OS-EXT-STS:power_state": 0,
            "os-extended-volumes:volumes_attached": [
                {"id": volume, "delete_on_termination": False} for volume in volumes
            ],
            "hostId": hashlib.sha224(server_id.encode()).hexdigest(),
            "description": request.get("description"),
            "locked": False,
            "created": now,
            "updated": now,
            "progress": 0,
            "_ports": [port["id"] for port in ports],
            "_created_ports": created,
            "_user_data": request.get("user_data"),
            "_scheduler_hints": dict(request.get("os:scheduler_hints") or {}),
        }
        self._join_group(world, server_id, body["_scheduler_hints"].get("group"))
        for volume in volumes:
            attach_volume(world, body, volume, None)
        return body

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        unknown = sorted(set(request) - SERVER_UPDATABLE)
        if unknown:
            raise BadRequest(f"Additional properties are not allowed ({', '.join(unknown)} unexpected)")
        return {**body, **request, "updated": world.timestamp()}

    def delete(self, world: CloudWorld, body: Body) -> None:
        ports = world.inventory("ports")
        for port_id in body["_ports"]:
            port = ports.get(port_id)
            if port is None:
                continue
            if port_id in body["_created_ports"]:
                Ports().delete(world, port)
            else:
                ports.put({**port, "device_id": "", "device_owner": "", "status": "DOWN"})
        for attached in body["os-extended-volumes:volumes_attached"]:
            detach_volume(world, body["id"], attached["id"])
        for group in world.inventory("server_groups").select():
            if body["id"] in group["members"]:
                members = [member for member in group["members"] if member != body["id"]]
                world.add("server_groups", {**group, "members": members})

    @staticmethod
    def _image(world: CloudWorld, request: Mapping[str, Any]) -> str | None:
        image = request.get("imageRef")
        boots_from_volume = any(
            mapping.get("boot_index") in (0, "0") for mapping in request.get("block_device_mapping_v2") or ()
        )
        if not image and not boots_from_volume:
            raise BadRequest("Missing imageRef attribute")
        if image and image not in world.inventory("images"):
            raise BadRequest(f"Image {image} could not be found.")
        return str(image) if image else None

    @staticmethod
    def _boot_volumes(world: CloudWorld, mappings: Any) -> list[str]:
        volumes = []
        for mapping in mappings:
            if mapping.get("source_type") == "volume":
                volume = world.require("volumes", str(mapping.get("uuid")), "Volume")
                if volume["status"] != "available":
                    raise BadRequest(f"Invalid volume: volume {volume['id']} status must be 'available'.")
                volumes.append(volume["id"])
        return volumes

    @staticmethod
    def _security_group_ids(world: CloudWorld, requested: Any) -> list[str]:
        groups = world.inventory("security_groups")
        ids = []
        for entry in requested:
            name = entry.get("name") if isinstance(entry, Mapping) else entry
            if name in groups:
                ids.append(str(name))
                continue
            found = groups.select(name=str(name))
            if not found:
                raise BadRequest(f"Security group {name} not found for project {world.settings.project_id}.")
            ids.append(found[0]["id"])
        return ids

    @staticmethod
    def _group_names(world: CloudWorld, ids: list[str]) -> list[str]:
        groups = world.inventory("security_groups")
        return [(groups.get(group_id) or {}).get("name") or group_id for group_id in ids]

    @staticmethod
    def _ports(
        world: CloudWorld, server_id: str, networks: Any, groups: list[str]
    ) -> tuple[list[Body], list[str]]:
        """The ports a new server gets: existing ones bound, and new ones on the networks named.

        With no networks named (or "auto"), Nova picks the project's network when it has exactly one.
        """
        if networks == "none":
            return [], []
        if networks in (None, "auto") or networks == []:
            own = [net for net in world.inventory("networks") if not net.get("router:external")]
            if len(own) != 1:
                return [], []
            networks = [{"uuid": own[0]["id"]}]
        ports: list[Body] = []
        created: list[str] = []
        for wanted in networks:
            if wanted.get("port"):
                port = world.require("ports", wanted["port"], "Port")
                if port["device_id"]:
                    raise Conflict(f"Port {port['id']} is still in use.")
            else:
                fixed = [{"ip_address": wanted["fixed_ip"]}] if wanted.get("fixed_ip") else None
                request = {"network_id": wanted.get("uuid"), "fixed_ips": fixed, "security_groups": groups}
                port = Ports().create(world, request)
                created.append(port["id"])
            port = {**port, "device_id": server_id, "device_owner": "compute:nova", "status": "ACTIVE"}
            world.add("ports", port)
            ports.append(port)
        return ports, created

    @staticmethod
    def _join_group(world: CloudWorld, server_id: str, group_id: Any) -> None:
        if not group_id:
            return
        group = world.require("server_groups", str(group_id), "Server group")
        world.add("server_groups", {**group, "members": [*group["members"], server_id]})


# the server actions (`POST /servers/{id}/action`) the simulated Nova serves, by their body key
SERVER_ACTIONS = (
    "resize",
    "confirmResize",
    "revertResize",
    "rebuild",
    "os-stop",
    "os-start",
    "changePassword",
    "suspend",
    "resume",
)
# Nova's vm_state a suspend or resume needs (anything else is refused with 409), and the one it leaves
SUSPEND_TRANSITIONS = {"suspend": ("ACTIVE", "SUSPENDED"), "resume": ("SUSPENDED", "ACTIVE")}


def server_action(world: CloudWorld, server: Body, action: str, request: Mapping[str, Any]) -> Body:
    """Nova's server actions: resize (then confirm or revert), rebuild, stop, start, changePassword,
    suspend and resume.

    A new administrator password is accepted and forgotten: the simulated cloud keeps no secrets.
    """
    ready = SERVER_BUILDING.ready
    if action == "resize":
        flavor = world.inventory("flavors").get(str(request.get("flavorRef")))
        if flavor is None:
            raise BadRequest(f"Flavor {request.get('flavorRef')} could not be found.")
        return {
            **server,
            "status": "VERIFY_RESIZE",
            "_old_flavor": [server["flavor"], server["_flavor_id"]],
            "flavor": flavor_details(flavor),
            "_flavor_id": flavor["id"],
        }
    if action in ("confirmResize", "revertResize"):
        if server["status"] != "VERIFY_RESIZE":
            raise Conflict(f"Cannot '{action}' instance {server['id']} while it is in vm_state active")
        kept = server["_old_flavor"] if action == "revertResize" else [server["flavor"], server["_flavor_id"]]
        return {key: value for key, value in server.items() if key != "_old_flavor"} | {
            "status": ready,
            "flavor": kept[0],
            "_flavor_id": kept[1],
        }
    if action == "rebuild":
        image = request.get("imageRef")
        if image not in world.inventory("images"):
            raise BadRequest(f"Image {image} could not be found.")
        return world.start_building("servers", {**server, "image": {"id": image}, "status": "BUILD"})
    if action in ("os-stop", "os-start"):
        return {**server, "status": "SHUTOFF" if action == "os-stop" else ready}
    if action in SUSPEND_TRANSITIONS:
        return suspended_or_resumed(server, action)
    if action == "changePassword":
        if not request.get("adminPass"):
            raise BadRequest(
                "Invalid input for field/attribute changePassword: 'adminPass' is a required property"
            )
        return server
    raise BadRequest(f"Unsupported server action {action!r}.")


def suspended_or_resumed(server: Body, action: str) -> Body:
    """Nova's suspend (ACTIVE -> SUSPENDED) or resume (SUSPENDED -> ACTIVE); 409 from any other state."""
    needed, reached = SUSPEND_TRANSITIONS[action]
    if server["status"] != needed:
        vm_state = str(server["status"]).lower()
        raise Conflict(f"Cannot '{action}' instance {server['id']} while it is in vm_state {vm_state}")
    return {**server, "status": reached, "OS-EXT-STS:vm_state": reached.lower()}


def attach_volume(world: CloudWorld, server: Body, volume_id: str, device: str | None) -> Body:
    """Attach a volume to a server (both bodies updated); the Nova attachment body."""
    volume = world.require("volumes", volume_id, "Volume")
    if any(attachment["server_id"] == server["id"] for attachment in volume["attachments"]):
        raise Conflict(f"volume {volume_id} is already attached to server {server['id']}.")
    if volume["status"] != "available" and not volume["multiattach"]:
        raise BadRequest(
            f"Invalid volume: volume {volume_id} status must be 'available', not {volume['status']}."
        )
    count = len(server["os-extended-volumes:volumes_attached"])
    device = device or f"/dev/vd{chr(ord('b') + count)}"
    attachment = {
        "id": volume_id,
        "attachment_id": world.new_id(),
        "volume_id": volume_id,
        "server_id": server["id"],
        "host_name": None,
        "device": device,
        "attached_at": world.timestamp(),
    }
    world.add("volumes", {**volume, "status": "in-use", "attachments": [*volume["attachments"], attachment]})
    attached = server["os-extended-volumes:volumes_attached"]
    if all(entry["id"] != volume_id for entry in attached):
        attached = [*attached, {"id": volume_id, "delete_on_termination": False}]
    world.add("servers", {**server, "os-extended-volumes:volumes_attached": attached})
    return nova_attachment(attachment)


def detach_volume(world: CloudWorld, server_id: str, volume_id: str) -> None:
    volume = world.require("volumes", volume_id, "Volume")
    remaining = [attachment for attachment in volume["attachments"] if attachment["server_id"] != server_id]
    if len(remaining) == len(volume["attachments"]):
        raise ItemNotFound(f"volume_id {volume_id} not found as an attachment of server {server_id}.")
    world.add(
        "volumes", {**volume, "attachments": remaining, "status": "in-use" if remaining else "available"}
    )
    server = world.inventory("servers").get(server_id)
    if server is not None:
        attached = [
            entry for entry in server["os-extended-volumes:volumes_attached"] if entry["id"] != volume_id
        ]
        world.add("servers", {**server, "os-extended-volumes:volumes_attached": attached})


def nova_attachment(attachment: Body) -> Body:
    return {
        "id": attachment["volume_id"],
        "volumeId": attachment["volume_id"],
        "serverId": attachment["server_id"],
        "device": attachment["device"],
        "attachment_id": attachment["attachment_id"],
        "tag": None,
        "delete_on_termination": False,
    }


class KeyPairs(Nova):
    """Key pairs are named, not numbered: the name is the id. A generated private key is shown once."""

    collection = "keypairs"
    shown_once = frozenset({"private_key"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not name:
            raise BadRequest("Invalid input for field/attribute keypair: 'name' is a required property")
        if name in world.inventory("keypairs"):
            raise Conflict(f"Key pair '{name}' already exists.")
        material = world.random.getrandbits(256).to_bytes(32, "big")
        public_key = request.get("public_key") or f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5{material.hex()} {name}"
        body = {
            "id": name,
            "name": name,
            "public_key": public_key,
            "fingerprint": ":".join(f"{byte:02x}" for byte in hashlib.md5(public_key.encode()).digest()),
            "type": request.get("type", "ssh"),
            "user_id": request.get("user_id") or world.settings.user_id,
            "created_at": world.timestamp(),
        }
        if not request.get("public_key"):
            body["private_key"] = (
                "-----BEGIN OPENSSH PRIVATE KEY-----\n"
                + material.hex()
                + "\n-----END OPENSSH PRIVATE KEY-----\n"
            )
        return body


class ServerGroups(Nova):
    collection = "server_groups"

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        policy = request.get("policy") or (request.get("policies") or ["anti-affinity"])[0]
        if policy not in ("affinity", "anti-affinity", "soft-affinity", "soft-anti-affinity"):
            raise BadRequest(
                f"Invalid input for field/attribute policy: {policy!r} is not one of the policies"
            )
        return {
            "id": world.new_id(),
            "name": request.get("name", ""),
            "policy": policy,
            "policies": [policy],
            "rules": dict(request.get("rules") or {}),
            "members": [],
            "metadata": {},
            "project_id": world.settings.project_id,
            "user_id": world.settings.user_id,
        }


BEHAVIOURS = (Flavors(), Servers(), KeyPairs(), ServerGroups())  # flavors: see `flavors`


def interface_of(port: Body) -> Body:
    """A port as Nova's os-interface API shows it."""
    return {
        "port_id": port["id"],
        "net_id": port["network_id"],
        "mac_addr": port["mac_address"],
        "port_state": port["status"],
        "fixed_ips": port["fixed_ips"],
    }


def attach_interface(world: CloudWorld, server: Body, request: Mapping[str, Any]) -> Body:
    """Nova's interface attach: bind a given port, or create one on a network (Nova then owns it)."""
    wanted: list[dict[str, Any]] = []
    if request.get("port_id"):
        wanted.append({"port": request["port_id"]})
    elif request.get("net_id"):
        fixed = (request.get("fixed_ips") or [{}])[0].get("ip_address")
        wanted.append({"uuid": request["net_id"], **({"fixed_ip": fixed} if fixed else {})})
    else:
        raise BadRequest(
            "Invalid input for field/attribute interfaceAttachment: port_id or net_id is required."
        )
    ports, created = Servers._ports(world, server["id"], wanted, [])
    attached = {
        **server,
        "_ports": [*server["_ports"], ports[0]["id"]],
        "_created_ports": [*server["_created_ports"], *created],
        "updated": world.timestamp(),
    }
    world.add("servers", attached)
    refresh_server_addresses(world, server["id"])
    return interface_of(ports[0])


def detach_interface(world: CloudWorld, server: Body, request: Mapping[str, Any]) -> Body:
    """Nova's interface detach: a port Nova created is deleted, a port it was given is unbound."""
    port_id = str(request.get("port_id"))
    if port_id not in server["_ports"]:
        raise ItemNotFound(f"Port {port_id} is not attached to server {server['id']}.")
    remaining = [port for port in server["_ports"] if port != port_id]
    world.add("servers", {**server, "_ports": remaining, "updated": world.timestamp()})
    port = world.inventory("ports").get(port_id)
    if port is not None:
        if port_id in server["_created_ports"]:
            Ports().delete(world, port)
        else:
            world.add("ports", {**port, "device_id": "", "device_owner": "", "status": "DOWN"})
    refresh_server_addresses(world, server["id"])
    return {}
