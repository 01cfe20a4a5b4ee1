"""A server's internal ports on the simulated cloud: made in Neutron before Nova is asked, found
again by their tags, deleted with the server or when their entry leaves the template. What an
internal port is: `providers.internal_ports`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from providers.interface import Marker
from providers.internal_ports import (
    INTERNAL_PORT_TAG,
    entry_tag,
    fixed_ip_request,
    internal_port_name,
    internal_port_tags,
    matches_entry,
)
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import ItemNotFound
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body


def make_internal_port(
    cloud: SimulatedCloud,
    resolver: NameResolver,
    entry: Mapping[str, Any],
    index: int,
    *,
    marker: Marker | None,
    security_groups: Sequence[str],
) -> str:
    """The id of the port for the `index`th entry: the one an unfinished create left, or a new one."""
    if marker is not None:
        for port in cloud.list("ports", tags=[entry_tag(marker, index)]):
            return str(port["id"])
    subnet_id = resolver.id_of("subnets", str(entry["subnet"]), "Subnet")
    if entry.get("network"):
        network_id = resolver.id_of("networks", str(entry["network"]), "Network")
    else:
        network_id = cloud.get("subnets", subnet_id)["network_id"]
    request: Body = {
        "network_id": network_id,
        "fixed_ips": fixed_ip_request(subnet_id, entry),
        "tags": internal_port_tags(marker, index) if marker is not None else [INTERNAL_PORT_TAG],
    }
    if marker is not None:
        request["name"] = internal_port_name(marker, index)
    if security_groups:
        request["security_groups"] = [
            resolver.id_of("security_groups", group, "Security group") for group in security_groups
        ]
    return str(cloud.create("ports", request)["id"])


def internal_ports_of(cloud: SimulatedCloud, server_id: str) -> dict[str, Body]:
    """The ports this server made for itself and still has, by id."""
    found = cloud.list("ports", tags=[INTERNAL_PORT_TAG], where={"device_id": server_id})
    return {port["id"]: port for port in found}


def serving_entry(port: Body, subnets: Mapping[int, tuple[Mapping[str, Any], str]]) -> int | None:
    """The index of the subnet entry (index -> entry and its subnet's id) this internal port serves."""
    for index, (entry, subnet_id) in subnets.items():
        if matches_entry(port, subnet_id, entry):
            return index
    return None


def delete_internal_port(cloud: SimulatedCloud, port_id: str) -> None:
    try:
        cloud.delete("ports", port_id)
    except ItemNotFound:
        return  # already gone: what deleting it wanted
