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

# The C modules beneath `socket` and `threading`: this file starts in every sandbox, and importing
# those two (enum, selectors, collections) costs more than the rest of its start.
import _socket
import _thread
import os
import sys

TYPE_CHECKING = False  # `typing` is not imported at run time either
if TYPE_CHECKING:
    from typing import Protocol

    class Stream(Protocol):
        """What a relay needs of a connected socket (`socket.socket` and `_socket.socket` are)."""

        def recv(self, size: int, /) -> bytes: ...
        def sendall(self, data: bytes, /) -> None: ...
        def shutdown(self, how: int, /) -> None: ...
        def close(self) -> None: ...


CHUNK = 65536


def pump(source: Stream, target: Stream) -> None:
    """Copy one direction of a connection until its end, then pass the end on."""
    try:
        while data := source.recv(CHUNK):
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:  # noqa: SIM105 - contextlib's import costs what this file saves
            target.shutdown(_socket.SHUT_WR)
        except OSError:
            pass


def splice(client: Stream, upstream: Stream) -> None:
    """Both directions of one connection, on a thread for the reverse one; both closed at the end."""
    back_done = _thread.allocate_lock()
    back_done.acquire()

    def back() -> None:
        try:
            pump(upstream, client)
        finally:
            back_done.release()

    _thread.start_new_thread(back, ())
    pump(client, upstream)
    back_done.acquire()
    client.close()
    upstream.close()


def _carry(client: _socket.socket, unix_path: str, named: bytes) -> None:
    upstream = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        upstream.connect(unix_path)
        if named:
            upstream.sendall(named)
    except OSError:
        upstream.close()
        client.close()
        return
    splice(client, upstream)


def serve(listener: _socket.socket, unix_path: str, named: bool = False) -> None:
    """Carry every connection the listener accepts; `named`: each preceded by `ADDRESS PORT\n`."""
    address, port = listener.getsockname()[:2]
    line = f"{address} {port}\n".encode() if named else b""
    while True:
        descriptor, _ = listener._accept()  # type: ignore[attr-defined]  # the C socket's accept
        _thread.start_new_thread(_carry, (_socket.socket(fileno=descriptor), unix_path, line))


def _listening(address: str, port: int) -> _socket.socket:
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
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
        _thread.start_new_thread(serve, (listener, unix_path, named))
    if listeners:
        serve(listeners[0], unix_path, named)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
