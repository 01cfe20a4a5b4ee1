"""A sandbox's loopback set up and given its addresses, over rtnetlink, as `ip` would.

A sandbox's network namespace has only loopback, down. Where its scripts reach the agent API or
their neighbours, loopback is brought up, holds the agent API's address (a /32, as `ip address
add ADDRESS/32 dev lo` gives it), and its neighbours' addresses are made local by routes in the
local table (`ip route add local NETWORK dev lo table local`), one for each of the fewest
prefixes that hold those addresses and no other (`prefixes`): a thousand neighbours numbered in
a row are a dozen routes, where an address each cost the kernel some 30 ms a machine to add and
tear down. An address outside them stays unreachable. A connection to a neighbour's address
leaves from that address and is accepted at it, as it was when loopback held it. Every
machine's boot does this, so it is done from the boot's own interpreter (`sandbox_boot`) with
netlink requests, not by starting `ip`. Standard library's C modules only: this runs inside the
sandbox by path.
"""

from __future__ import annotations

import _socket
import os
import struct

NETLINK_ROUTE = 0
RTM_NEWLINK = 16
RTM_NEWADDR = 20
RTM_NEWROUTE = 24
NLMSG_ERROR = 2
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
IFF_UP = 0x1
IFA_ADDRESS = 1
IFA_LOCAL = 2
RTA_DST = 1
RTA_OIF = 4
RT_TABLE_LOCAL = 255
RTPROT_BOOT = 3
RT_SCOPE_HOST = 254
RTN_LOCAL = 2
HEADER = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, sequence, port


def _message(kind: int, flags: int, sequence: int, body: bytes) -> bytes:
    padded = body + b"\0" * (-len(body) % 4)
    flags |= NLM_F_REQUEST | NLM_F_ACK
    return HEADER.pack(HEADER.size + len(padded), kind, flags, sequence, 0) + padded


def _attribute(kind: int, data: bytes) -> bytes:
    return struct.pack("=HH", 4 + len(data), kind) + data + b"\0" * (-len(data) % 4)


def link_up(index: int, sequence: int) -> bytes:
    """RTM_NEWLINK: the interface `index` up (ifinfomsg: family, type, index, flags, change)."""
    body = struct.pack("=BxHiII", _socket.AF_UNSPEC, 0, index, IFF_UP, IFF_UP)
    return _message(RTM_NEWLINK, 0, sequence, body)


def address_added(index: int, address: str, sequence: int) -> bytes:
    """RTM_NEWADDR: `address`/32 on the interface `index`, refused if it is there already."""
    packed = _socket.inet_aton(address)
    head = struct.pack("=BBBBI", _socket.AF_INET, 32, 0, 0, index)  # ifaddrmsg, scope global
    body = head + _attribute(IFA_LOCAL, packed) + _attribute(IFA_ADDRESS, packed)
    return _message(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, sequence, body)


def local_route_added(index: int, network: str, length: int, sequence: int) -> bytes:
    """RTM_NEWROUTE: `network`/`length` local through the interface `index` (rtmsg: family,
    lengths of destination and source, tos, table, protocol, scope, type, flags)."""
    head = struct.pack(
        "=BBBBBBBBI", _socket.AF_INET, length, 0, 0, RT_TABLE_LOCAL, RTPROT_BOOT, RT_SCOPE_HOST, RTN_LOCAL, 0
    )
    body = (
        head + _attribute(RTA_DST, _socket.inet_aton(network)) + _attribute(RTA_OIF, struct.pack("=i", index))
    )
    return _message(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, sequence, body)


def prefixes(addresses: list[str]) -> list[tuple[str, int]]:
    """The fewest (network, length) that hold every IPv4 address of `addresses` and no other."""
    numbers = sorted({int.from_bytes(_socket.inet_aton(address), "big") for address in addresses})
    found = []
    start = 0
    while start < len(numbers):
        first = numbers[start]
        size = 1
        # the largest block aligned at `first` whose every address is in the (sorted, unique) list
        while (
            size < 1 << 32
            and first % (size * 2) == 0
            and start + size * 2 - 1 < len(numbers)
            and numbers[start + size * 2 - 1] == first + size * 2 - 1
        ):
            size *= 2
        found.append((_socket.inet_ntoa(first.to_bytes(4, "big")), 32 - size.bit_length() + 1))
        start += size
    return found


def _acknowledged(channel: _socket.socket, requests: int) -> None:
    """Read one acknowledgement per request; raise on the first refusal."""
    while requests:
        data = channel.recv(65536)
        offset = 0
        while offset + HEADER.size <= len(data):
            length, kind, _, _, _ = HEADER.unpack_from(data, offset)
            if kind == NLMSG_ERROR:
                requests -= 1
                error = -struct.unpack_from("=i", data, offset + HEADER.size)[0]
                if error:
                    raise OSError(error, f"loopback: {os.strerror(error)}")
            offset += max(HEADER.size, (length + 3) & ~3)


# Requests sent before their acknowledgements are read: a machine holding a thousand neighbours'
# addresses would otherwise overflow the socket's receive buffer with acknowledgements (ENOBUFS).
REQUESTS_PER_SEND = 64


def set_up(addresses: list[str], neighbours: list[str]) -> None:
    """Loopback up, holding `addresses`, `neighbours` made local by the fewest routes."""
    index = _socket.if_nametoindex("lo")
    requests = [link_up(index, 1)]
    requests += [address_added(index, address, number) for number, address in enumerate(addresses, 2)]
    _send(requests + _routes(index, prefixes(neighbours), len(requests) + 1))


def routes_added(networks: list[tuple[str, int]]) -> None:
    """`networks` (network, length) made local through loopback, already up: new neighbours."""
    _send(_routes(_socket.if_nametoindex("lo"), networks, 1))


def _routes(index: int, networks: list[tuple[str, int]], first: int) -> list[bytes]:
    return [
        local_route_added(index, network, length, number)
        for number, (network, length) in enumerate(networks, first)
    ]


def _send(requests: list[bytes]) -> None:
    channel = _socket.socket(_socket.AF_NETLINK, _socket.SOCK_RAW, NETLINK_ROUTE)
    try:
        channel.bind((0, 0))
        for start in range(0, len(requests), REQUESTS_PER_SEND):
            batch = requests[start : start + REQUESTS_PER_SEND]
            channel.send(b"".join(batch))
            _acknowledged(channel, len(batch))
    finally:
        channel.close()
