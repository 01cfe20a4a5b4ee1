"""A sandbox's loopback set up and given its addresses, over rtnetlink, as `ip` would.

A sandbox's network namespace has only loopback, down. Where its scripts reach the agent API or
their neighbours, loopback is brought up and holds the addresses they are reached at (each a
/32, as `ip address add ADDRESS/32 dev lo` gives it). Every machine's boot does this, so it is
done from the boot's own interpreter (`sandbox_boot`) with one netlink request, not by starting
`ip`. Standard library's C modules only: this runs inside the sandbox by path.
"""

from __future__ import annotations

import _socket
import os
import struct

NETLINK_ROUTE = 0
RTM_NEWLINK = 16
RTM_NEWADDR = 20
NLMSG_ERROR = 2
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
IFF_UP = 0x1
IFA_ADDRESS = 1
IFA_LOCAL = 2
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


def set_up(addresses: list[str]) -> None:
    """Loopback up, holding `addresses`."""
    index = _socket.if_nametoindex("lo")
    requests = [link_up(index, 1)] + [
        address_added(index, address, number) for number, address in enumerate(addresses, 2)
    ]
    channel = _socket.socket(_socket.AF_NETLINK, _socket.SOCK_RAW, NETLINK_ROUTE)
    try:
        channel.bind((0, 0))
        for start in range(0, len(requests), REQUESTS_PER_SEND):
            batch = requests[start : start + REQUESTS_PER_SEND]
            channel.send(b"".join(batch))
            _acknowledged(channel, len(batch))
    finally:
        channel.close()
