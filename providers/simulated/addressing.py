"""IP and MAC addresses for the simulated cloud: sequential per subnet, deterministic per seed."""

from __future__ import annotations

import functools
import ipaddress
import random

from providers.simulated.errors import Conflict
from providers.simulated.inventory import Body

FIRST_HOST = 2  # .1 is the gateway


def gateway_of(cidr: str) -> str:
    network = ipaddress.ip_network(cidr, strict=False)
    return str(network.network_address + 1)


def allocation_pool_of(cidr: str) -> list[dict[str, str]]:
    network = ipaddress.ip_network(cidr, strict=False)
    last = network.broadcast_address - (1 if network.version == 4 else 0)
    return [{"start": str(network.network_address + FIRST_HOST), "end": str(last)}]


@functools.lru_cache(maxsize=4096)
def parsed_network(cidr: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_network(cidr, strict=False)


def next_address(subnet: Body) -> tuple[str, Body]:
    """The next free address of `subnet`, and the subnet body with its counter moved on."""
    network = parsed_network(subnet["cidr"])
    offset = subnet.get("_next_host", FIRST_HOST)
    if offset >= network.num_addresses - 1:
        raise Conflict(f"No more IP addresses available on subnet {subnet['id']}.")
    address = str(network.network_address + offset)
    return address, {**subnet, "_next_host": offset + 1}


def mac_address(source: random.Random) -> str:
    return "fa:16:3e:" + ":".join(f"{source.randrange(256):02x}" for _ in range(3))
