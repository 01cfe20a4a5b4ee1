"""The sandbox's one way out: a TCP listener inside its network namespace, relaying to a Unix socket.

A sandboxed script's network namespace has only loopback. This relay listens there on the agent
API's address (the one VMs are given), and carries each connection to a Unix socket the host side
(`reconciler.agent.agent_gateway`) serves, which carries it on to the agent API. Every other
address is unreachable from inside: there is no route but loopback.

Run inside the sandbox by path with the standard library only (`python -I -S sandbox_relay.py
HOST PORT SOCKET`): it binds, listens, then forks; the parent exits 0 once the listener is ready,
so the launcher starts the script only after that. The child serves until the sandbox's PID
namespace ends with the script.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading

CHUNK = 65536


def pump(source: socket.socket, target: socket.socket) -> None:
    """Copy one direction of a connection until its end, then pass the end on."""
    try:
        while data := source.recv(CHUNK):
            target.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def splice(client: socket.socket, upstream: socket.socket) -> None:
    """Both directions of one connection, on a thread for the reverse one; both closed at the end."""
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _relay(client: socket.socket, unix_path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(unix_path)
    except OSError:
        upstream.close()
        client.close()
        return
    splice(client, upstream)


def serve(listener: socket.socket, unix_path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, unix_path), daemon=True).start()


def main(arguments: list[str]) -> int:
    host, port, unix_path = arguments[0], int(arguments[1]), arguments[2]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(64)
    if os.fork():
        return 0  # ready: the launcher goes on to the script
    os.setsid()
    serve(listener, unix_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
