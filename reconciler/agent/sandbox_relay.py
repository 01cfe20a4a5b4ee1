"""The sandbox's ways out: TCP listeners inside its network namespace, relaying to Unix sockets.

A sandboxed script's network namespace has only loopback. This relay listens there on the agent
API's address (the one VMs are given), and carries each connection to a Unix socket the host side
(`reconciler.agent.agent_gateway`) serves, which carries it on to the agent API. Every other
address is unreachable from inside: there is no route but loopback.

With `--named`, it listens at the addresses of the servers the sandbox shares a network with, on
the port their service answers (ssh's 22), and sends each connection to one Unix socket the host
side (`reconciler.agent.peer_gateway`) serves for this server alone, preceded by a line naming the
address and port asked for; the gateway decides whether the simulated network lets this server
reach that one.

Run inside the sandbox by path with the standard library only (`python -I -S sandbox_relay.py
HOST PORT SOCKET`, or `python -I -S sandbox_relay.py --named SOCKET PORT ADDRESS...`): it binds,
listens, then forks; the parent exits 0 once every listener is ready, so the launcher starts the
script only after that. The child serves until the sandbox's PID namespace ends with the script.
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


def _carry(client: socket.socket, unix_path: str, named: bytes) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(unix_path)
        if named:
            upstream.sendall(named)
    except OSError:
        upstream.close()
        client.close()
        return
    splice(client, upstream)


def serve(listener: socket.socket, unix_path: str, *, named: bool = False) -> None:
    """Carry every connection the listener accepts; `named`: each preceded by `ADDRESS PORT\n`."""
    address, port = listener.getsockname()[:2]
    line = f"{address} {port}\n".encode() if named else b""
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_carry, args=(client, unix_path, line), daemon=True).start()


def _listening(address: str, port: int) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address, port))
    listener.listen(64)
    return listener


def main(arguments: list[str]) -> int:
    named = arguments[:1] == ["--named"]
    if named:
        unix_path, port, addresses = arguments[1], int(arguments[2]), arguments[3:]
    else:
        addresses, port, unix_path = [arguments[0]], int(arguments[1]), arguments[2]
    listeners = [_listening(address, port) for address in addresses]
    if os.fork():
        return 0  # ready: the launcher goes on to the script
    os.setsid()
    for listener in listeners[1:]:
        threading.Thread(
            target=serve, args=(listener, unix_path), kwargs={"named": named}, daemon=True
        ).start()
    if listeners:
        serve(listeners[0], unix_path, named=named)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
