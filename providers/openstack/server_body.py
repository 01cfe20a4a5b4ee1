"""Heat's OS::Nova::Server properties written as Nova's `POST /servers` body (microversion 2.54).

| Heat property | Nova body key |
|---|---|
| name (default: stack-resource-id) | server.name |
| flavor (name or id) | server.flavorRef |
| image (name or id) | server.imageRef |
| key_name, availability_zone, config_drive | same names |
| admin_pass | server.adminPass |
| diskConfig | server.OS-DCF:diskConfig |
| metadata (+ the marker entry) | server.metadata |
| tags (+ the marker tags) | server.tags |
| user_data | server.user_data (base64) |
| networks: network / port / fixed_ip / tag | server.networks: uuid / port / fixed_ip / tag |
| networks absent | server.networks = "auto" |
| security_groups | server.security_groups: [{name}] |
| block_device_mapping_v2 | server.block_device_mapping_v2 (see `device_mapping`) |
| block_device_mapping (v1) | server.block_device_mapping_v2 (see `legacy_device_mapping`) |
| personality | server.personality: [{path, contents (base64)}] |
| scheduler_hints | os:scheduler_hints (beside `server`) |

`user_data` is passed as given (Heat's RAW format); the other user_data_format values wrap it for
Heat's own agents, which this project does not run.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from providers.interface import Marker, Permanent
from providers.marker_text import NOVA_TAG
from providers.openstack.marker_tags import (
    MARKER_METADATA_KEY,
    marker_metadata_value,
    marker_tags,
    physical_name,
)
from providers.openstack.name_lookup import NameLookup

PLAIN_KEYS = {
    "key_name": "key_name",
    "availability_zone": "availability_zone",
    "config_drive": "config_drive",
}
RENAMED_KEYS = {"admin_pass": "adminPass", "diskConfig": "OS-DCF:diskConfig"}


def server_create_body(properties: Mapping[str, Any], marker: Marker, names: NameLookup) -> dict[str, Any]:
    server: dict[str, Any] = {
        "name": properties.get("name") or physical_name(marker),
        "flavorRef": names.id_of("flavor", properties["flavor"]),
        "metadata": {
            **stringified(properties.get("metadata") or {}),
            MARKER_METADATA_KEY: marker_metadata_value(marker),
        },
        "tags": [*(properties.get("tags") or []), *marker_tags(marker, NOVA_TAG)],
        "networks": network_entries(properties.get("networks") or [], names),
    }
    if properties.get("image"):
        server["imageRef"] = names.id_of("image", properties["image"])
    for heat_key, nova_key in {**PLAIN_KEYS, **RENAMED_KEYS}.items():
        if properties.get(heat_key) is not None:
            server[nova_key] = properties[heat_key]
    if properties.get("user_data"):
        server["user_data"] = base64.b64encode(str(properties["user_data"]).encode()).decode()
    if properties.get("security_groups"):
        server["security_groups"] = [{"name": group} for group in properties["security_groups"]]
    mappings = [device_mapping(entry, names) for entry in properties.get("block_device_mapping_v2") or []]
    mappings += [legacy_device_mapping(entry) for entry in properties.get("block_device_mapping") or []]
    if mappings:
        server["block_device_mapping_v2"] = mappings
    if properties.get("personality"):
        server["personality"] = [
            {"path": path, "contents": base64.b64encode(str(text).encode()).decode()}
            for path, text in properties["personality"].items()
        ]
    body: dict[str, Any] = {"server": server}
    if properties.get("scheduler_hints"):
        body["os:scheduler_hints"] = dict(properties["scheduler_hints"])
    return body


def stringified(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Nova metadata values are strings; Heat turns other values into their JSON-ish text."""
    return {str(key): value if isinstance(value, str) else str(value) for key, value in metadata.items()}


def network_entries(networks: list[Mapping[str, Any]], names: NameLookup) -> list[dict[str, Any]] | str:
    if not networks:
        return "auto"
    if len(networks) == 1 and networks[0].get("allocate_network") in ("auto", "none"):
        return str(networks[0]["allocate_network"])
    return [network_entry(entry, names) for entry in networks]


def network_entry(entry: Mapping[str, Any], names: NameLookup) -> dict[str, Any]:
    nova: dict[str, Any] = {}
    if entry.get("port"):
        nova["port"] = names.id_of("port", entry["port"])
    elif entry.get("network"):
        nova["uuid"] = names.id_of("network", entry["network"])
    else:
        raise Permanent("a networks entry needs a network or a port")
    if entry.get("fixed_ip"):
        nova["fixed_ip"] = entry["fixed_ip"]
    if entry.get("tag"):
        nova["tag"] = entry["tag"]
    return nova


def device_mapping(entry: Mapping[str, Any], names: NameLookup) -> dict[str, Any]:
    """One Heat block_device_mapping_v2 entry as Nova's: the source decides source/destination."""
    mapping: dict[str, Any] = {}
    if entry.get("volume_id"):
        mapping.update(source_type="volume", destination_type="volume", uuid=entry["volume_id"])
    elif entry.get("snapshot_id"):
        mapping.update(source_type="snapshot", destination_type="volume", uuid=entry["snapshot_id"])
    elif entry.get("image") or entry.get("image_id"):
        image = names.id_of("image", entry.get("image") or entry["image_id"])
        mapping.update(source_type="image", destination_type="volume", uuid=image)
    elif entry.get("swap_size"):
        mapping.update(source_type="blank", destination_type="local", guest_format="swap")
        mapping["volume_size"] = entry["swap_size"]
    elif entry.get("ephemeral_size"):
        mapping.update(source_type="blank", destination_type="local", volume_size=entry["ephemeral_size"])
        if entry.get("ephemeral_format"):
            mapping["guest_format"] = entry["ephemeral_format"]
    else:
        raise Permanent(
            "a block_device_mapping_v2 entry needs a volume, snapshot, image, swap or ephemeral size"
        )
    for key in (
        "device_name",
        "device_type",
        "disk_bus",
        "boot_index",
        "volume_size",
        "delete_on_termination",
    ):
        if entry.get(key) is not None:
            mapping[key] = entry[key]
    return mapping


ROOT_DEVICES = ("vda", "sda", "xvda", "hda")


def legacy_device_mapping(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A Heat block_device_mapping (v1) entry in v2 form; the root device name makes it the boot disk."""
    if entry.get("volume_id"):
        mapping: dict[str, Any] = {"source_type": "volume", "uuid": entry["volume_id"]}
    elif entry.get("snapshot_id"):
        mapping = {"source_type": "snapshot", "uuid": entry["snapshot_id"]}
    else:
        raise Permanent("a block_device_mapping entry needs a volume_id or a snapshot_id")
    device = str(entry.get("device_name") or "")
    mapping.update(destination_type="volume", device_name=device)
    mapping["boot_index"] = 0 if device.removeprefix("/dev/") in ROOT_DEVICES else -1
    for key in ("volume_size", "delete_on_termination"):
        if entry.get(key) is not None:
            mapping[key] = entry[key]
    return mapping
