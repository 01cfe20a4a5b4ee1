"""A server as Nova lists it (`GET /servers/detail`), reduced to a LiveResource with Heat's attributes.

Attributes follow Heat's OS::Nova::Server reference: `addresses` is Nova's own map, `networks`
maps each network's name and id to its addresses, `first_address` is the first IPv4 address
(Heat's deprecated but still used attribute), `tags` are the template's tags only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.interface import LiveResource, LiveStatus
from providers.openstack.marker_tags import MARKER_METADATA_KEY, marker_from_metadata, user_tags
from providers.openstack.name_lookup import NameLookup

SERVER_TYPE = "OS::Nova::Server"
READY_STATES = {"ACTIVE", "SHUTOFF", "PAUSED", "SUSPENDED"}
FAILED_STATES = {"ERROR"}
GONE_STATES = {"DELETED", "SOFT_DELETED"}
HIDDEN_FIELDS = {"OS-EXT-SRV-ATTR:user_data", "adminPass"}  # never kept in `show`: they may hold secrets


def is_gone(server: Mapping[str, Any]) -> bool:
    return server.get("status") in GONE_STATES


def live_server(server: Mapping[str, Any], names: NameLookup) -> LiveResource:
    metadata = dict(server.get("metadata") or {})
    marker = marker_from_metadata(metadata)
    metadata.pop(MARKER_METADATA_KEY, None)
    status, reason = server_status(server)
    addresses: Mapping[str, list[Mapping[str, Any]]] = server.get("addresses") or {}
    tags = user_tags(server.get("tags") or [])
    return LiveResource(
        physical_id=server["id"],
        type=SERVER_TYPE,
        status=status,
        status_reason=reason,
        marker=marker,
        suspended=server.get("status") == "SUSPENDED",
        properties={
            "name": server.get("name"),
            "metadata": metadata,
            "flavor": flavor_of(server),
            "image": image_of(server),
            "key_name": server.get("key_name"),
            "tags": tags,
        },
        attributes={
            "name": server.get("name"),
            "addresses": addresses,
            "networks": networks_attribute(addresses, names),
            "first_address": first_address(addresses),
            "accessIPv4": server.get("accessIPv4", ""),
            "accessIPv6": server.get("accessIPv6", ""),
            "instance_name": server.get("OS-EXT-SRV-ATTR:instance_name"),
            "tags": tags,
            "show": {key: value for key, value in server.items() if key not in HIDDEN_FIELDS},
        },
    )


def server_status(server: Mapping[str, Any]) -> tuple[LiveStatus, str]:
    status = str(server.get("status", ""))
    if status in FAILED_STATES:
        fault = server.get("fault") or {}
        return LiveStatus.FAILED, f"{status}: {fault.get('message', 'no fault recorded')}"
    if status in READY_STATES:
        return LiveStatus.READY, "" if status == "ACTIVE" else status
    return LiveStatus.IN_PROGRESS, status


def flavor_of(server: Mapping[str, Any]) -> str | None:
    flavor = server.get("flavor") or {}
    value = flavor.get("original_name") or flavor.get("id")
    return str(value) if value is not None else None


def image_of(server: Mapping[str, Any]) -> str | None:
    image = server.get("image")
    return str(image["id"]) if isinstance(image, Mapping) and image.get("id") else None


def first_address(addresses: Mapping[str, list[Mapping[str, Any]]]) -> str:
    for entries in addresses.values():
        for entry in entries:
            if entry.get("version") == 4:
                return str(entry.get("addr", ""))
    return ""


def networks_attribute(
    addresses: Mapping[str, list[Mapping[str, Any]]], names: NameLookup
) -> dict[str, list[str]]:
    """Heat's `networks`: every network's name and (when known) id mapped to its addresses."""
    networks: dict[str, list[str]] = {}
    for network_name, entries in addresses.items():
        ips = [str(entry.get("addr")) for entry in entries]
        networks[network_name] = ips
        for network_id in names.ids_named("network", network_name):
            networks[network_id] = ips
    return networks
