"""A TCP proxy in front of the test PostgreSQL that can lose one COMMIT, as a network or a server
restart loses it: either the COMMIT reaches the server and its answer never comes back (the
transaction committed, the client cannot know), or the COMMIT never reaches the server (it rolls
the transaction back when the connection goes). Everything else is relayed byte for byte."""

from __future__ import annotations

import enum
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from sqlalchemy.engine import URL, make_url

COMMIT_QUERY = b"Q\x00\x00\x00\x0bCOMMIT\x00"  # the simple-query message psycopg sends to commit


class Cut(enum.Enum):
    ANSWER = "the COMMIT reaches the server, its answer is lost"
    COMMIT = "the COMMIT is lost on its way to the server"


class CommitCuttingProxy:
    def __init__(self, server: URL) -> None:
        self._server = server
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._armed: Cut | None = None
        self._lock = threading.Lock()
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> URL:
        """The server's URL, reached through this proxy."""
        query = {key: value for key, value in self._server.query.items() if key != "host"}
        return self._server.set(
            host="127.0.0.1", port=self._listener.getsockname()[1], query=query
        ).update_query_dict({"sslmode": "disable"})

    def arm(self, cut: Cut) -> None:
        """Lose the next COMMIT any connection sends, the way `cut` says."""
        with self._lock:
            self._armed = cut

    def close(self) -> None:
        self._listener.close()

    def _connect_upstream(self) -> socket.socket:
        host = self._server.query.get("host") or self._server.host or "localhost"
        port = self._server.port or 5432
        if isinstance(host, str) and host.startswith("/"):
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(f"{host}/.s.PGSQL.{port}")
            return upstream
        return socket.create_connection((str(host), port))

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = self._connect_upstream()
            swallow = threading.Event()
            threading.Thread(target=self._to_server, args=(client, upstream, swallow), daemon=True).start()
            threading.Thread(target=self._to_client, args=(upstream, client, swallow), daemon=True).start()

    def _take_cut(self, chunk: bytes) -> Cut | None:
        with self._lock:
            if self._armed is None or COMMIT_QUERY not in chunk:
                return None
            cut, self._armed = self._armed, None
            self.cuts += 1
            return cut

    def _to_server(self, client: socket.socket, upstream: socket.socket, swallow: threading.Event) -> None:
        with suppress(OSError):
            while chunk := client.recv(65536):
                cut = self._take_cut(chunk)
                if cut is Cut.COMMIT:
                    break
                if cut is Cut.ANSWER:
                    swallow.set()
                upstream.sendall(chunk)
        if not swallow.is_set():
            _close(client, upstream)

    def _to_client(self, upstream: socket.socket, client: socket.socket, swallow: threading.Event) -> None:
        with suppress(OSError):
            while chunk := upstream.recv(65536):
                if swallow.is_set():
                    break  # the server answered the COMMIT: the client never hears it
                client.sendall(chunk)
        _close(client, upstream)


def _close(*sockets: socket.socket) -> None:
    for each in sockets:
        with suppress(OSError):
            each.shutdown(socket.SHUT_RDWR)
        each.close()


@contextmanager
def commit_cutting_proxy(database_url: str) -> Iterator[CommitCuttingProxy]:
    proxy = CommitCuttingProxy(make_url(database_url))
    try:
        yield proxy
    finally:
        proxy.close()
