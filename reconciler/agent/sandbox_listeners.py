"""A resident machine's ways out, made inside its network namespace and handed to the host.

A machine's network namespace has only loopback, holding the agent API's address and its
neighbours' (its boot adds them, `sandbox_boot`). Rather than a relay process in every machine, this
script binds a TCP listener at each `ADDRESS:PORT` asked for, inside the namespace it runs in, and
passes the listening sockets to the host over a Unix socket (`SCM_RIGHTS`): the host's one thread
(`machine_listeners`) then accepts for every machine. A listener keeps the namespace it was made
in, so what it accepts came from the machine's scripts, and nothing else is reachable from them.

Run inside the machine by path with the standard library's C modules only (`python -I -S
sandbox_listeners.py FD ADDRESS:PORT...`, FD a `SOCK_SEQPACKET` Unix socket): each message
carries up to `BATCH` listeners, its text naming them in order; a last message `END` says all
were sent. Exit 0 once sent, 125 otherwise (the reason on stderr).
"""

from __future__ import annotations

import _socket
import sys

BATCH = 200  # the kernel takes at most 253 descriptors in one message
END = b"."
IP_FREEBIND = 15  # bound before the boot gives the loopback its addresses


def listening(endpoint: str) -> _socket.socket:
    address, _, port = endpoint.rpartition(":")
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.setsockopt(_socket.IPPROTO_IP, IP_FREEBIND, 1)
    listener.bind((address, int(port)))
    listener.listen(64)
    return listener


def send(channel: _socket.socket, endpoints: list[str], listeners: list[_socket.socket]) -> None:
    """The listeners, in batches, each with the text naming them; then `END`."""
    for start in range(0, len(listeners), BATCH):
        batch = listeners[start : start + BATCH]
        descriptors = b"".join(item.fileno().to_bytes(4, sys.byteorder) for item in batch)
        text = " ".join(endpoints[start : start + BATCH]).encode("ascii")
        channel.sendmsg([text], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, descriptors)])
    channel.send(END)


def main(arguments: list[str]) -> int:
    try:
        channel = _socket.socket(fileno=int(arguments[0]))
        endpoints = arguments[1:]
        send(channel, endpoints, [listening(endpoint) for endpoint in endpoints])
    except (OSError, ValueError, IndexError) as error:
        print(f"sandbox: listeners: {error}", file=sys.stderr)
        return 125
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
