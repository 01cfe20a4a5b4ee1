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
| networks | POST / DELETE /servers/{id}/os-interface |

A resize leaves the server in VERIFY_RESIZE; the observe pass that sees it there confirms it (see
`ServerHandler.observe`), so no call here waits for Nova.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import MARKER_METADATA_KEY, is_marker_tag
from providers.openstack.server_body import stringified

POLICY_PROPERTIES = {
    "flavor_update_policy",
    "image_update_policy",
    "user_data_update_policy",
    "software_config_transport",
    "deployment_swift_data",
}


def update_server(
    apis: CloudApis, server_id: str, properties: Mapping[str, Any], changed: frozenset[str]
) -> None:
    path = f"/servers/{server_id}"
    current: dict[str, Any] = apis.compute.get(path)["server"]
    compute = apis.compute
    if "name" in changed and properties.get("name"):
        compute.put(path, {"server": {"name": properties["name"]}})
    if "metadata" in changed:
        kept = {k: v for k, v in (current.get("metadata") or {}).items() if k == MARKER_METADATA_KEY}
        compute.put(
            f"{path}/metadata", {"metadata": {**stringified(properties.get("metadata") or {}), **kept}}
        )
    if "tags" in changed:
        kept_tags = [tag for tag in current.get("tags") or [] if is_marker_tag(tag)]
        compute.put(f"{path}/tags", {"tags": [*(properties.get("tags") or []), *kept_tags]})
    if "flavor" in changed:
        flavor = apis.names.id_of("flavor", properties["flavor"])
        compute.post(f"{path}/action", {"resize": {"flavorRef": flavor}})
    if changed & {"image", "key_name"}:
        compute.post(f"{path}/action", {"rebuild": rebuild_body(apis, current, properties)})
    if "admin_pass" in changed and properties.get("admin_pass"):
        compute.post(f"{path}/action", {"changePassword": {"adminPass": properties["admin_pass"]}})
    if "security_groups" in changed:
        update_security_groups(apis, server_id, properties.get("security_groups") or [])
    if "networks" in changed:
        update_networks(apis, server_id, properties.get("networks") or [])


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


def update_networks(apis: CloudApis, server_id: str, desired: list[Mapping[str, Any]]) -> None:
    """Attach interfaces the template gained and detach the ones it lost."""
    path = f"/servers/{server_id}/os-interface"
    attached: list[dict[str, Any]] = apis.compute.get(path)["interfaceAttachments"]
    wanted_ports = {apis.names.id_of("port", entry["port"]) for entry in desired if entry.get("port")}
    wanted_networks = [apis.names.id_of("network", e["network"]) for e in desired if not e.get("port")]
    unmatched = list(wanted_networks)
    for interface in attached:
        if interface["port_id"] in wanted_ports:
            wanted_ports.discard(interface["port_id"])
        elif interface["net_id"] in unmatched:
            unmatched.remove(interface["net_id"])
        else:
            apis.compute.delete(f"{path}/{interface['port_id']}")
    for port in sorted(wanted_ports):
        apis.compute.post(path, {"interfaceAttachment": {"port_id": port}})
    for network in unmatched:
        apis.compute.post(path, {"interfaceAttachment": {"net_id": network}})
