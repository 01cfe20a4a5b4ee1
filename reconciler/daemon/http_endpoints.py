"""The daemon's HTTP port: the status page (`/`, `/stacks/NAME`), `/healthz`, `/metrics`, `/status`
and `POST /hooks/git`.

A standard-library threading server on its own thread: the handlers only read a health verdict,
render metrics or status, or set an event that wakes the fetch loop, so they never block the
daemon. With a webhook secret set, `/hooks/git` wakes the fetch only for a push signed with it
(`webhook_auth`): anything else gets 401 and a body saying why.
"""

from __future__ import annotations

import errno
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer

from reconciler.daemon.metrics import CONTENT_TYPE
from reconciler.daemon.progress import Health, Healthy
from reconciler.daemon.status_page import PAGE_HEADERS, PageAnswer
from reconciler.daemon.webhook_auth import Refused, verify_push

LOG = logging.getLogger(__name__)

MAX_HOOK_BODY = 1 << 20  # webhook payloads are checked and dropped: the fetch decides what changed


@dataclass(frozen=True)
class Endpoints:
    """What the handlers call into."""

    health: Callable[[], Health]
    metrics: Callable[[], bytes]
    git_hook: Callable[[], None]
    status: Callable[[], bytes] = lambda: b"{}\n"  # the JSON of GET /status
    webhook_secret: bytes | None = field(default=None, repr=False)  # None: /hooks/git is open
    page: Callable[[str], PageAnswer | None] = lambda _target: None  # a page path's answer, else None


class ListenError(ValueError):
    """The operator address cannot be bound; the message names it and what to do."""

    def __init__(self, host: str, port: int, error: OSError) -> None:
        hint = (
            "another process listens there (a second daemon?): stop it or choose another --listen"
            if error.errno == errno.EADDRINUSE
            else "choose another --listen"
        )
        super().__init__(f"cannot listen on {host}:{port}: {error.strerror or error}; {hint}")


def parse_listen(value: str) -> tuple[str, int]:
    """`HOST:PORT` (IPv6 hosts in brackets) into a (host, port) pair; ValueError names the problem."""
    host, separator, port = value.rpartition(":")
    if not separator or not port.isdigit() or not host:
        raise ValueError(f"--listen {value!r}: expected HOST:PORT, e.g. 127.0.0.1:8787")
    number = int(port)
    if number > 65535:
        raise ValueError(f"--listen {value!r}: port {number} is out of range")
    return host.strip("[]"), number


def _handler(endpoints: Endpoints) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "reconciler"

        def do_GET(self) -> None:
            if self.path == "/healthz":
                verdict = endpoints.health()
                if isinstance(verdict, Healthy):
                    self._reply(HTTPStatus.OK, b"ok\n")
                else:
                    stalled = ", ".join(f"{name} {age:.0f}s" for name, age in sorted(verdict.loops.items()))
                    self._reply(HTTPStatus.SERVICE_UNAVAILABLE, f"stalled: {stalled}\n".encode())
            elif self.path == "/metrics":
                self._reply(HTTPStatus.OK, endpoints.metrics(), CONTENT_TYPE)
            elif self.path == "/status":
                self._reply(HTTPStatus.OK, endpoints.status(), "application/json")
            else:
                self._page()

        def _page(self) -> None:
            try:
                answer = endpoints.page(self.path)
            except Exception:  # the store away, a repository being repacked: say so, keep serving
                LOG.exception("the status page could not be made for %s", self.path)
                self._reply(HTTPStatus.SERVICE_UNAVAILABLE, b"status page unavailable: see the log\n")
                return
            if answer is None:
                self._reply(HTTPStatus.NOT_FOUND, b"not found\n")
            else:
                self._reply(answer.status, answer.body, headers=PAGE_HEADERS)

        def do_POST(self) -> None:
            if self.path != "/hooks/git":
                self._reply(HTTPStatus.NOT_FOUND, b"not found\n")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_HOOK_BODY:
                self._reply(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, b"payload over 1 MiB refused\n")
                return
            body = self.rfile.read(length)
            verdict = verify_push(endpoints.webhook_secret, dict(self.headers.items()), body)
            if isinstance(verdict, Refused):
                LOG.warning("refused a git hook from %s: %s", self.client_address[0], verdict.reason)
                self._reply(HTTPStatus.UNAUTHORIZED, f"refused: {verdict.reason}\n".encode())
                return
            endpoints.git_hook()
            self._reply(HTTPStatus.ACCEPTED, b"fetch scheduled\n")

        def _reply(
            self,
            status: HTTPStatus,
            body: bytes,
            content_type: str = "text/plain",
            headers: Mapping[str, str] | None = None,
        ) -> None:
            self.send_response(status)
            for name, value in (headers or {"Content-Type": content_type}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            """Requests are not logged: scrapes every few seconds would drown the journal."""

    return Handler


class ServedOnThread:
    """An HTTP server served on a thread of its own; `address` is the bound (host, port), port 0
    resolved."""

    def __init__(self, server: HTTPServer, name: str) -> None:
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


class HttpEndpoints(ServedOnThread):
    """The operator endpoints, served on their own thread."""

    def __init__(self, host: str, port: int, endpoints: Endpoints) -> None:
        try:
            server = ThreadingHTTPServer((host, port), _handler(endpoints))
        except OSError as error:
            raise ListenError(host, port, error) from None
        server.daemon_threads = True
        super().__init__(server, "http")
