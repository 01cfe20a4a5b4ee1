"""The sandbox's way to the servers it shares a network with: listeners at their addresses.

Inside a server's sandbox, each neighbour's address is put on loopback and this relay listens
there on the ports the neighbours serve (ssh's 22). Each connection goes to one Unix socket the
host side (`reconciler.agent.peer_gateway`) serves for this server alone, preceded by a line
naming the address and port asked for; the gateway decides whether the simulated network lets
this server reach that one, and hands the connection to the neighbour's service.

Run inside the sandbox by path with the standard library only (`python -I -S sandbox_peers.py
SOCKET PORT ADDRESS...`): it binds, listens, then forks; the parent exits 0 once every listener
is ready. The child serves until the sandbox's PID namespace ends.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading

CHUNK = 65536


def pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(CHUNK):
            target.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def carry(client: socket.socket, unix_path: str, address: str, port: int) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(unix_path)
        upstream.sendall(f"{address} {port}\n".encode())
    except OSError:
        upstream.close()
        client.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def serve(listener: socket.socket, unix_path: str) -> None:
    address, port = listener.getsockname()[:2]
    while True:
        client, _ = listener.accept()
        threading.Thread(target=carry, args=(client, unix_path, address, port), daemon=True).start()


def main(arguments: list[str]) -> int:
    unix_path, port, addresses = arguments[0], int(arguments[1]), arguments[2:]
    listeners = []
    for address in addresses:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((address, port))
        listener.listen(16)
        listeners.append(listener)
    if os.fork():
        return 0  # ready: the launcher goes on to the script
    os.setsid()
    for listener in listeners[1:]:
        threading.Thread(target=serve, args=(listener, unix_path), daemon=True).start()
    if listeners:
        serve(listeners[0], unix_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
