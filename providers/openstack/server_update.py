"""In-place changes to a server, one Nova call per kind of change, as Heat makes them.

| changed property | Nova call |
|---|---|
| name | PUT /servers/{id} {server: {name}} |
| metadata | PUT /servers/{id}/metadata (the marker entry kept) |
| tags | PUT /servers/{id}/tags (the marker tags kept) |
| flavor (flavor_update_policy RESIZE) | POST /servers/{id}/action {resize} |
| image, key_name (image_update_policy REBUILD*) | POST /servers/{id}/action {rebuild} |
| admin_pass | POST /servers/{id}/action {changePassword} |
| security_groups | GET /ports?device_id={id}, PUT /ports/{port} {port: {security_groups}} |
| networks | POST / DELETE /servers/{id}/os-interface; an entry naming a subnet: POST / DELETE /ports |

Properties that only steer Heat's own choices (the *_update_policy ones, software_config_transport)
need no call. A resize leaves the server in VERIFY_RESIZE; the observe pass that sees it there
confirms it (see `ServerHandler.observe`), so no call here waits for Nova.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from providers.interface import Marker
from providers.internal_ports import needs_internal_port
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import MARKER_METADATA_KEY, is_marker_tag, marker_from_metadata
from providers.openstack.server_body import stringified
from providers.openstack.server_ports import (
    delete_internal_port,
    internal_ports_of,
    make_internal_port,
    serving_entry,
)

ServerState = Mapping[str, Any]  # the server as Nova showed it before the update


def update_server(
    apis: CloudApis, server_id: str, properties: Mapping[str, Any], changed: frozenset[str]
) -> None:
    """Run the step of every kind of change in `changed`, in the table's order."""
    current: ServerState = apis.compute.get(f"/servers/{server_id}")["server"]
    for triggers, step in STEPS:
        if changed & triggers:
            step(apis, server_id, current, properties)


def rename(apis: CloudApis, server_id: str, current: ServerState, properties: Mapping[str, Any]) -> None:
    if properties.get("name"):
        apis.compute.put(f"/servers/{server_id}", {"server": {"name": properties["name"]}})


def replace_metadata(
    apis: CloudApis, server_id: str, current: ServerState, properties: Mapping[str, Any]
) -> None:
    kept = {k: v for k, v in (current.get("metadata") or {}).items() if k == MARKER_METADATA_KEY}
    metadata = {**stringified(properties.get("metadata") or {}), **kept}
    apis.compute.put(f"/servers/{server_id}/metadata", {"metadata": metadata})


def replace_tags(
    apis: CloudApis, server_id: str, current: ServerState, properties: Mapping[str, Any]
) -> None:
    kept = [tag for tag in current.get("tags") or [] if is_marker_tag(tag)]
    apis.compute.put(f"/servers/{server_id}/tags", {"tags": [*(properties.get("tags") or []), *kept]})


def resize(apis: CloudApis, server_id: str, current: ServerState, properties: Mapping[str, Any]) -> None:
    flavor = apis.names.id_of("flavor", properties["flavor"])
    apis.compute.post(f"/servers/{server_id}/action", {"resize": {"flavorRef": flavor}})


def rebuild(apis: CloudApis, server_id: str, current: ServerState, properties: Mapping[str, Any]) -> None:
    apis.compute.post(f"/servers/{server_id}/action", {"rebuild": rebuild_body(apis, current, properties)})


def change_password(
    apis: CloudApis, server_id: str, current: ServerState, properties: Mapping[str, Any]
) -> None:
    if properties.get("admin_pass"):
        body = {"changePassword": {"adminPass": properties["admin_pass"]}}
        apis.compute.post(f"/servers/{server_id}/action", body)


def set_security_groups(
    apis: CloudApis, server_id: str, current: ServerState, properties: Mapping[str, Any]
) -> None:
    update_security_groups(apis, server_id, properties.get("security_groups") or [])


def set_networks(
    apis: CloudApis, server_id: str, current: ServerState, properties: Mapping[str, Any]
) -> None:
    marker = marker_from_metadata(current.get("metadata") or {})
    update_networks(apis, server_id, properties.get("networks") or [], marker, properties)


def rebuild_body(
    apis: CloudApis, current: Mapping[str, Any], properties: Mapping[str, Any]
) -> dict[str, Any]:
    image = properties.get("image")
    current_image = current.get("image") or {}
    rebuild: dict[str, Any] = {
        "imageRef": apis.names.id_of("image", image) if image else current_image.get("id"),
        "key_name": properties.get("key_name"),
    }
    if properties.get("image_update_policy") == "REBUILD_PRESERVE_EPHEMERAL":
        rebuild["preserve_ephemeral"] = True
    return rebuild


def update_security_groups(apis: CloudApis, server_id: str, desired: list[str]) -> None:
    """Set the groups on every port of the server, as Heat does for the ports it manages."""
    groups = [apis.names.id_of("security_group", group) for group in desired]
    for port in apis.network.list_all("/ports", "ports", {"device_id": server_id}):
        if sorted(port.get("security_groups") or []) != sorted(groups):
            apis.network.put(f"/ports/{port['id']}", {"port": {"security_groups": groups}})


def update_networks(
    apis: CloudApis,
    server_id: str,
    desired: list[Mapping[str, Any]],
    marker: Marker | None,
    properties: Mapping[str, Any],
) -> None:
    """Attach interfaces the template gained and detach the ones it lost; an entry naming a subnet
    keeps the internal port still on that subnet, or gets a new one (the old one deleted)."""
    path = f"/servers/{server_id}/os-interface"
    attached: list[dict[str, Any]] = apis.compute.get(path)["interfaceAttachments"]
    internal = internal_ports_of(apis, server_id)
    wanted_ports = {apis.names.id_of("port", entry["port"]) for entry in desired if entry.get("port")}
    unmatched = [
        apis.names.id_of("network", entry["network"])
        for entry in desired
        if entry.get("network") and not entry.get("port") and not needs_internal_port(entry)
    ]
    subnets = {
        index: (entry, apis.names.id_of("subnet", str(entry["subnet"])))
        for index, entry in enumerate(desired)
        if needs_internal_port(entry)
    }
    for interface in attached:
        port_id = interface["port_id"]
        served = serving_entry(internal[port_id], subnets) if port_id in internal else None
        if port_id in wanted_ports:
            wanted_ports.discard(port_id)
        elif served is not None:
            subnets.pop(served)
        elif port_id not in internal and interface["net_id"] in unmatched:
            unmatched.remove(interface["net_id"])
        else:
            apis.compute.delete(f"{path}/{port_id}")
            if port_id in internal:
                delete_internal_port(apis, port_id)
    groups = properties.get("security_groups") or []
    for index, (entry, _subnet) in sorted(subnets.items()):
        wanted_ports.add(make_internal_port(apis, entry, index, marker, groups))
    for port in sorted(wanted_ports):
        apis.compute.post(path, {"interfaceAttachment": {"port_id": port}})
    for network in unmatched:
        apis.compute.post(path, {"interfaceAttachment": {"net_id": network}})


Step = Callable[[CloudApis, str, ServerState, Mapping[str, Any]], None]
STEPS: tuple[tuple[frozenset[str], Step], ...] = (
    (frozenset({"name"}), rename),
    (frozenset({"metadata"}), replace_metadata),
    (frozenset({"tags"}), replace_tags),
    (frozenset({"flavor"}), resize),
    (frozenset({"image", "key_name"}), rebuild),
    (frozenset({"admin_pass"}), change_password),
    (frozenset({"security_groups"}), set_security_groups),
    (frozenset({"networks"}), set_networks),
)
