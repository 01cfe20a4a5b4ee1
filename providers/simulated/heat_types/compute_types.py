"""OS::Nova::Server, OS::Nova::KeyPair and OS::Nova::ServerGroup on the simulated cloud.

Key pairs and server groups carry no tags in Nova, so their markers cannot be stored: a key pair
is found again by its (required, unique) name, and a server group without a name is named after
its marker so that it can be found by name after a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, Marker, Permanent
from providers.internal_ports import needs_internal_port
from providers.marker_text import NOVA_TAG, bounded_name
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict
from providers.simulated.heat_types.adapter import TaggedCollection, split_tags
from providers.simulated.heat_types.server_ports import (
    delete_internal_port,
    internal_ports_of,
    make_internal_port,
    serving_entry,
)
from providers.simulated.inventory import Body


def marker_name(marker: Marker) -> str:
    """The physical name Heat would give a resource with no name: stack, resource and record, cut
    to the 255 characters Nova keeps."""
    return bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id}")


def marker_of(server: Body) -> Marker | None:
    """The server's marker, when its tag holds it in clear (a digest cannot be read back)."""
    return split_tags(server)[0]


class Server(TaggedCollection):
    type_name = "OS::Nova::Server"
    collection = "servers"
    tag_limit = NOVA_TAG
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "key_name": "key_name",
        "metadata": "metadata",
        "user_data": "user_data",
        "availability_zone": "availability_zone",
        "config_drive": "config_drive",
        "block_device_mapping_v2": "block_device_mapping_v2",
        "admin_pass": "adminPass",
    }

    def create_request(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> Body:
        request = super().create_request(cloud, properties, marker)
        request.setdefault("name", marker_name(marker))
        if properties.get("image"):
            request["imageRef"] = self.resolver.id_of("images", properties["image"], "Image")
        request["flavorRef"] = self.resolver.id_of("flavors", str(properties.get("flavor")), "Flavor")
        groups = properties.get("security_groups") or ()
        request["networks"] = [
            {
                "port": make_internal_port(
                    cloud, self.resolver, entry, index, marker=marker, security_groups=groups
                )
            }
            if needs_internal_port(entry)
            else self._network(entry)
            for index, entry in enumerate(properties.get("networks") or ())
        ]
        request["security_groups"] = [{"name": group} for group in groups]
        if properties.get("scheduler_hints"):
            request["os:scheduler_hints"] = dict(properties["scheduler_hints"])
        return request

    def _network(self, entry: Mapping[str, Any]) -> Body:
        if entry.get("port"):
            return {"port": entry["port"]}
        wanted: Body = {"uuid": self.resolver.id_of("networks", str(entry.get("network")), "Network")}
        if entry.get("fixed_ip"):
            wanted["fixed_ip"] = entry["fixed_ip"]
        return wanted

    def update(
        self,
        cloud: SimulatedCloud,
        physical_id: str,
        properties: Mapping[str, Any],
        changed: frozenset[str],
    ) -> LiveResource:
        if "admin_pass" in changed and properties.get("admin_pass"):
            cloud.act("servers", physical_id, "changePassword", {"adminPass": properties["admin_pass"]})
        if "networks" in changed:
            self._update_networks(cloud, physical_id, properties)
        if "security_groups" in changed:
            self._update_security_groups(cloud, physical_id, properties.get("security_groups") or [])
        if "name" in changed:
            cloud.update("servers", physical_id, {"name": properties.get("name") or ""})
        if "metadata" in changed:
            cloud.act(
                "servers", physical_id, "set_metadata", {"metadata": dict(properties.get("metadata") or {})}
            )
        if "flavor" in changed:
            flavor = self.resolver.id_of("flavors", str(properties.get("flavor")), "Flavor")
            cloud.act("servers", physical_id, "resize", {"flavorRef": flavor})
            cloud.act("servers", physical_id, "confirmResize", {})
        if "image" in changed or "key_name" in changed:
            image = self.resolver.id_of("images", str(properties.get("image")), "Image")
            cloud.act("servers", physical_id, "rebuild", {"imageRef": image})
        rest = changed - {
            "name",
            "metadata",
            "flavor",
            "image",
            "key_name",
            "admin_pass",
            "networks",
            "security_groups",
        }
        return super().update(cloud, physical_id, properties, frozenset(rest & {"tags"}))

    def _update_networks(self, cloud: SimulatedCloud, server_id: str, properties: Mapping[str, Any]) -> None:
        """Attach the interfaces the template gained, detach the ones it lost (as Heat does); an entry
        naming a subnet keeps the internal port still on it, or gets a new one (the old one deleted)."""
        desired: list[Mapping[str, Any]] = properties.get("networks") or []
        server = cloud.get("servers", server_id)
        ports = cloud.list("ports", ids=server["_ports"])
        internal = internal_ports_of(cloud, server_id)
        wanted = [self._network(entry) for entry in desired if not needs_internal_port(entry)]
        wanted_ports = {entry["port"] for entry in wanted if "port" in entry}
        wanted_networks = [entry["uuid"] for entry in wanted if "uuid" in entry]
        subnets = {
            index: (entry, self.resolver.id_of("subnets", str(entry["subnet"]), "Subnet"))
            for index, entry in enumerate(desired)
            if needs_internal_port(entry)
        }
        for port in ports:
            served = serving_entry(port, subnets) if port["id"] in internal else None
            if port["id"] in wanted_ports:
                wanted_ports.discard(port["id"])
            elif served is not None:
                subnets.pop(served)
            elif port["id"] not in internal and port["network_id"] in wanted_networks:
                wanted_networks.remove(port["network_id"])
            else:
                cloud.act("servers", server_id, "detach_interface", {"port_id": port["id"]})
                if port["id"] in internal:
                    delete_internal_port(cloud, port["id"])
        marker = marker_of(server)
        groups = properties.get("security_groups") or []
        for index, (entry, _subnet) in sorted(subnets.items()):
            wanted_ports.add(
                make_internal_port(cloud, self.resolver, entry, index, marker=marker, security_groups=groups)
            )
        for port_id in sorted(wanted_ports):
            cloud.act("servers", server_id, "attach_interface", {"port_id": port_id})
        for network_id in wanted_networks:
            cloud.act("servers", server_id, "attach_interface", {"net_id": network_id})

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        """The server, then the ports it made for itself (Nova keeps ports it was handed)."""
        owned = internal_ports_of(cloud, physical_id)
        cloud.delete(self.collection, physical_id)
        for port_id in owned:
            delete_internal_port(cloud, port_id)

    def _update_security_groups(self, cloud: SimulatedCloud, server_id: str, desired: list[str]) -> None:
        groups = [self.resolver.id_of("security_groups", group, "Security group") for group in desired]
        for port in cloud.list("ports", ids=cloud.get("servers", server_id)["_ports"]):
            if sorted(port["security_groups"]) != sorted(groups):
                cloud.update("ports", port["id"], {"security_groups": groups})

    def suspend(self, cloud: SimulatedCloud, physical_id: str) -> LiveResource:
        return self._moved_to(cloud, physical_id, "suspend", "SUSPENDED")

    def resume(self, cloud: SimulatedCloud, physical_id: str) -> LiveResource:
        return self._moved_to(cloud, physical_id, "resume", "ACTIVE")

    def _moved_to(self, cloud: SimulatedCloud, physical_id: str, action: str, status: str) -> LiveResource:
        """Nova's suspend or resume, not sent when the server is there already (idempotent)."""
        body = cloud.get("servers", physical_id)
        if body["status"] != status:
            body = cloud.act("servers", physical_id, action, {})
        return self.live(cloud, body)

    def properties_of(self, body: Body) -> dict[str, Any]:
        observed = super().properties_of(body)
        observed.pop("user_data", None)
        observed["flavor"] = (body.get("flavor") or {}).get("original_name")
        observed["image"] = (body.get("image") or {}).get("id") if body.get("image") else None
        observed["availability_zone"] = body.get("OS-EXT-AZ:availability_zone")
        return observed

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        addresses: Mapping[str, list[Body]] = body.get("addresses") or {}
        networks = {label: [entry["addr"] for entry in entries] for label, entries in addresses.items()}
        first = next((entry["addr"] for entries in addresses.values() for entry in entries), "")
        return {
            "name": body["name"],
            "addresses": addresses,
            "networks": networks,
            "first_address": first,
            "accessIPv4": body.get("accessIPv4") or first,
            "accessIPv6": body.get("accessIPv6") or "",
            "instance_name": f"instance-{body['id'][:8]}",
            "tags": body.get("tags") or [],
            "console_urls": {},
            "os_collect_config": {},
        }


class KeyPair(TaggedCollection):
    type_name = "OS::Nova::KeyPair"
    collection = "keypairs"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "public_key": "public_key",
        "type": "type",
        "user": "user_id",
    }

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = self.fields(cloud, properties)
        try:
            body = cloud.create("keypairs", request)
        except Conflict as error:
            existing = cloud.get("keypairs", str(request.get("name")))
            if not request.get("public_key") or existing["public_key"] != request["public_key"]:
                raise Permanent(key_pair_taken(str(request.get("name")))) from error
            body = existing
        live = self.live(cloud, body)
        if properties.get("save_private_key") and body.get("private_key"):
            attributes = {**live.attributes, "private_key": body["private_key"]}
            return LiveResource(live.physical_id, live.type, live.status, live.properties, attributes, marker)
        return LiveResource(
            live.physical_id, live.type, live.status, live.properties, live.attributes, marker
        )

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None  # Nova key pairs hold no tags; a re-create with the same public key adopts instead

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        return {"public_key": body.get("public_key"), "private_key": ""}


class ServerGroup(TaggedCollection):
    type_name = "OS::Nova::ServerGroup"
    collection = "server_groups"
    passthrough: ClassVar[Mapping[str, str]] = {"name": "name", "rules": "rules"}

    def create_request(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> Body:
        request = self.fields(cloud, properties)
        request.setdefault("name", marker_name(marker))
        request["policies"] = list(properties.get("policies") or ["anti-affinity"])
        return request

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        bodies = cloud.list("server_groups", name=marker_name(marker))
        if not bodies:
            return None
        live = self.live(cloud, bodies[0])
        return LiveResource(
            live.physical_id, live.type, live.status, live.properties, live.attributes, marker
        )

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {"name": body.get("name"), "policies": body.get("policies"), "rules": body.get("rules")}


TYPES = (Server, KeyPair, ServerGroup)


def key_pair_taken(name: str) -> str:
    """Why a key pair cannot be made: the name is taken by a key this template did not give."""
    return (
        f"a key pair named {name!r} already exists with another key (key pairs hold no marker: "
        "give its public_key to adopt it, or choose another name)"
    )
