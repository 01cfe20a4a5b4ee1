"""The ports a server makes for itself, as Heat's server does for a `networks` entry naming a subnet.

Nova's `networks` entries take a network, a port or a fixed IP, never a subnet. For an entry with a
`subnet` and no `port`, Heat creates a port on that subnet (on the entry's network, or the
subnet's) named `<resource>-port-<n>`, hands it to Nova, and deletes it with the server or when the
entry leaves the template. Both providers do the same; what they share is written here: which
entries need such a port, its name, and the tags that mark it as the server's own.

Each internal port carries `INTERNAL_PORT_TAG` (so the ports a server owns are one list filter
away: `device_id` and that tag) and a tag naming its server's marker and entry index, so a create
repeated after a crash adopts the port it made instead of making another.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.interface import Marker
from providers.marker_text import NEUTRON_TAG

INTERNAL_PORT_TAG = f"{Marker.PREFIX}-internal-port"


def needs_internal_port(entry: Mapping[str, Any]) -> bool:
    """A networks entry naming a subnet but no port."""
    return bool(entry.get("subnet")) and not entry.get("port")


def internal_port_name(marker: Marker, index: int) -> str:
    return f"{marker.resource}-port-{index}"


def entry_tag(marker: Marker, index: int) -> str:
    """The tag of the port made for the `index`th networks entry of the server `marker` names."""
    return NEUTRON_TAG.fitted(f"{Marker.PREFIX}-port:{marker.tag}:{index}")


def internal_port_tags(marker: Marker, index: int) -> list[str]:
    return [INTERNAL_PORT_TAG, entry_tag(marker, index), NEUTRON_TAG.fitted(marker.stack_tag)]


def fixed_ip_request(subnet_id: str, entry: Mapping[str, Any]) -> list[dict[str, str]]:
    """Neutron's fixed_ips for an internal port: the subnet, and the address when the entry gives one."""
    fixed = {"subnet_id": subnet_id}
    if entry.get("fixed_ip"):
        fixed["ip_address"] = str(entry["fixed_ip"])
    return [fixed]


def matches_entry(port: Mapping[str, Any], subnet_id: str, entry: Mapping[str, Any]) -> bool:
    """Whether an internal port still serves an entry: on its subnet, at its address if it names one."""
    return any(
        fixed.get("subnet_id") == subnet_id
        and (not entry.get("fixed_ip") or fixed.get("ip_address") == entry["fixed_ip"])
        for fixed in port.get("fixed_ips") or []
    )
