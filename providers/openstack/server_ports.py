"""A server's internal ports through Neutron's API: made before Nova is asked (`POST /ports`, then
the port handed to Nova), found again by their tags, deleted with the server or when their entry
leaves the template. What an internal port is: `providers.internal_ports`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

from providers.interface import Marker, NotFound
from providers.internal_ports import (
    INTERNAL_PORT_TAG,
    entry_tag,
    fixed_ip_request,
    internal_port_name,
    internal_port_tags,
    matches_entry,
    needs_internal_port,
)
from providers.openstack.cloud_apis import CloudApis


def with_internal_ports(
    apis: CloudApis, networks: Sequence[Mapping[str, Any]], marker: Marker, security_groups: Sequence[str]
) -> list[Mapping[str, Any]]:
    """The networks entries, each one naming a subnet (and no port) turned into its internal port."""
    return [
        internal_port_entry(entry, make_internal_port(apis, entry, index, marker, security_groups))
        if needs_internal_port(entry)
        else entry
        for index, entry in enumerate(networks)
    ]


def internal_port_entry(entry: Mapping[str, Any], port_id: str) -> dict[str, Any]:
    nova_entry: dict[str, Any] = {"port": port_id}
    if entry.get("tag"):
        nova_entry["tag"] = entry["tag"]
    return nova_entry


def make_internal_port(
    apis: CloudApis,
    entry: Mapping[str, Any],
    index: int,
    marker: Marker | None,
    security_groups: Sequence[str],
) -> str:
    """The id of the port for the `index`th entry: the one an unfinished create left, or a new one."""
    if marker is not None:
        for port in apis.network.list_all("/ports", "ports", {"tags": entry_tag(marker, index)}):
            return str(port["id"])
    subnet_id = apis.names.id_of("subnet", str(entry["subnet"]))
    if entry.get("network"):
        network_id = apis.names.id_of("network", str(entry["network"]))
    else:
        network_id = apis.network.get(f"/subnets/{subnet_id}")["subnet"]["network_id"]
    body: dict[str, Any] = {"network_id": network_id, "fixed_ips": fixed_ip_request(subnet_id, entry)}
    if marker is not None:
        body["name"] = internal_port_name(marker, index)
    if security_groups:
        body["security_groups"] = [apis.names.id_of("security_group", group) for group in security_groups]
    tags = internal_port_tags(marker, index) if marker is not None else [INTERNAL_PORT_TAG]
    tag_in_body = apis.network_extensions.offers("tag-creation")
    if tag_in_body:
        body["tags"] = tags
    port = apis.network.post("/ports", {"port": body})["port"]
    if not tag_in_body:
        apis.network.put(f"/ports/{port['id']}/tags", {"tags": tags})
    return str(port["id"])


def serving_entry(
    port: Mapping[str, Any], subnets: Mapping[int, tuple[Mapping[str, Any], str]]
) -> int | None:
    """The index of the subnet entry (index -> entry and its subnet's id) this internal port serves."""
    for index, (entry, subnet_id) in subnets.items():
        if matches_entry(port, subnet_id, entry):
            return index
    return None


def internal_ports_of(apis: CloudApis, server_id: str) -> dict[str, dict[str, Any]]:
    """The ports this server made for itself and still has, by id."""
    query = {"device_id": server_id, "tags": INTERNAL_PORT_TAG}
    return {port["id"]: port for port in apis.network.list_all("/ports", "ports", query)}


def delete_internal_port(apis: CloudApis, port_id: str) -> None:
    with contextlib.suppress(NotFound):  # already gone: what deleting it wanted
        apis.network.delete(f"/ports/{port_id}")
