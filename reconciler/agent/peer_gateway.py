"""The host side of the sandboxes' way to one another: a Unix socket per server.

Inside a server's sandbox, `sandbox_relay --named` listens at its neighbours' addresses and carries each
connection to the socket this gateway serves for that server alone, after a line naming the
address and port asked for. Since the socket is the server's own, the gateway knows who calls;
`route` (the simulated network's verdict) says which server the connection reaches and what
serves it there (`Session`, e.g. an sshd started for it), or None: the connection is closed, as
an unreachable address or a filtered port would leave it. Nothing else is reachable: the host
and other clouds' servers are never on the other end.

A resident machine's listeners at its neighbours' addresses (`machine_listeners`) hand their
connections to `serve_local`, which learns the address and port asked for from the connection
itself (the listener was bound there), with no header.

Sockets live in a directory of their own under the system's temporary directory (a Unix
socket's path is limited to about 100 bytes).
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
from collections.abc import Callable
from pathlib import Path

from reconciler.agent.owned_directories import OwnedDirectory

LOG = logging.getLogger(__name__)
HEADER_LIMIT = 128
SELECT_TIMEOUT = 0.5  # how soon `stop()` is noticed
Session = Callable[[socket.socket], None]
Route = Callable[[str, str, int], Session | None]


class PeerGateway:
    """The servers' sockets, all served by one thread: `start()`, `socket_for`, `forget`, `stop()`."""

    def __init__(self, route: Route) -> None:
        self._route = route
        self._directory = OwnedDirectory("peer-gw-")
        self._selector = selectors.DefaultSelector()
        self._listeners: dict[str, socket.socket] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="peer-gateway", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def socket_for(self, server_id: str) -> str:
        """The path of `server_id`'s own socket (made the first time)."""
        path = str(self._directory.path / f"{server_id}.sock")
        with self._lock:
            if server_id not in self._listeners:
                listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                listener.bind(path)
                listener.listen(64)
                listener.setblocking(False)
                self._listeners[server_id] = listener
                self._selector.register(listener, selectors.EVENT_READ, server_id)
        return path

    def forget(self, server_id: str) -> None:
        """Close a server's socket (the server is gone)."""
        with self._lock:
            listener = self._listeners.pop(server_id, None)
            if listener is not None:
                self._selector.unregister(listener)
                listener.close()
                Path(self._directory.path / f"{server_id}.sock").unlink(missing_ok=True)

    def stop(self) -> None:
        """Stop accepting (sessions under way finish on their own) and remove the sockets."""
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(5)
        with self._lock:
            for listener in self._listeners.values():
                listener.close()
            self._listeners.clear()
        self._selector.close()
        self._directory.remove()

    def _serve(self) -> None:
        while not self._stopped.is_set():
            try:
                ready = self._selector.select(timeout=SELECT_TIMEOUT)
            except (OSError, ValueError, KeyError):
                continue  # a socket forgotten meanwhile
            for key, _ in ready:
                with contextlib.suppress(OSError):
                    client, _ = key.fileobj.accept()  # type: ignore[union-attr]
                    client.setblocking(True)
                    threading.Thread(target=self._connect, args=(client, key.data), daemon=True).start()

    def serve_local(self, source_id: str, client: socket.socket) -> None:
        """Serve a connection a listener of `source_id`'s machine accepted at a neighbour's address."""
        try:
            address, port = client.getsockname()[:2]
            session = self._route(source_id, str(address), int(port))
        except OSError as error:
            LOG.debug("a peer connection from server %s was refused: %s", source_id, error)
            session = None
        self._hand_over(client, source_id, session)

    def _connect(self, client: socket.socket, source_id: str) -> None:
        try:
            address, port = _header(client)
            session = self._route(source_id, address, port)
        except (OSError, ValueError) as error:
            LOG.debug("a peer connection from server %s was refused: %s", source_id, error)
            session = None
        self._hand_over(client, source_id, session)

    def _hand_over(self, client: socket.socket, source_id: str, session: Session | None) -> None:
        if session is None:
            client.close()
            return
        try:
            session(client)
        except Exception:
            LOG.exception("a session of a connection from server %s failed", source_id)
        finally:
            client.close()


def _header(client: socket.socket) -> tuple[str, int]:
    """The `ADDRESS PORT` line a relay sends first, read byte by byte (what follows is the peer's)."""
    line = b""
    while not line.endswith(b"\n"):
        byte = client.recv(1)
        if not byte or len(line) > HEADER_LIMIT:
            raise ValueError("no header")
        line += byte
    address, port = line.decode("ascii").split()
    return address, int(port)
