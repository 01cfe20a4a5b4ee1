"""The threaded HTTP server of the simulated cloud: HTTP/1.1 keep-alive, TCP_NODELAY on every
connection (without it a small JSON answer waits ~40 ms on the client's delayed ACK), one thread
per connection. It parses requests, checks the token, routes to the services and writes their
answers or their errors; a timeout fault closes the connection without an answer.
"""

from __future__ import annotations

import json
import logging
import socket
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from providers.simulated.alarm_evaluator import AlarmEvaluator
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, CallTimedOut, CloudError
from providers.simulated.http.admin import Admin
from providers.simulated.http.aodh import Aodh
from providers.simulated.http.barbican import Barbican
from providers.simulated.http.blazar import Blazar
from providers.simulated.http.cinder import Cinder
from providers.simulated.http.designate import Designate
from providers.simulated.http.error_bodies import error_response, method_not_allowed, not_found
from providers.simulated.http.exchange import ApiRequest, ApiResponse
from providers.simulated.http.glance import Glance
from providers.simulated.http.keystone import Keystone, Unauthorized
from providers.simulated.http.keystone_admin import KeystoneAdmin
from providers.simulated.http.magnum import Magnum
from providers.simulated.http.mistral import Mistral
from providers.simulated.http.monasca import Monasca
from providers.simulated.http.neutron import Neutron
from providers.simulated.http.nova import Nova
from providers.simulated.http.octavia import Octavia
from providers.simulated.http.region_paths import region_prefix, split_region
from providers.simulated.http.routing import Route, Router
from providers.simulated.http.swift import Swift
from providers.simulated.http.telemetry_admin import TelemetryAdmin
from providers.simulated.http.zaqar import Zaqar
from providers.simulated.http.zun import Zun

LOG = logging.getLogger(__name__)
LISTEN_BACKLOG = 256


class CloudHTTPServer(ThreadingHTTPServer):
    """Serves one SimulatedCloud; `url` is where clients reach it."""

    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, cloud: SimulatedCloud, host: str = "127.0.0.1", port: int = 0) -> None:
        self.cloud = cloud
        self.keystone = Keystone(cloud.settings, tuple(cloud.regions))
        self.alarm_evaluator = AlarmEvaluator(cloud)  # started by whoever serves (`start(interval)`)
        routes = self.keystone.routes() + regional_routes(cloud)
        for extra in (KeystoneAdmin(cloud), TelemetryAdmin(self.alarm_evaluator)):
            routes += extra.routes()
        self.router = Router(routes)
        # The other regions answer under their prefix (`region_paths`), each on its own model.
        self.routers = {cloud.region: self.router}
        for name, region in cloud.regions.items():
            self.routers.setdefault(name, Router(regional_routes(region)))
        super().__init__((host, port), CloudRequestHandler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


def regional_routes(cloud: SimulatedCloud) -> list[Route]:
    """The routes of every service a region serves on its own model (all but Keystone's)."""
    routes: list[Route] = []
    for service in (
        Nova(cloud),
        Neutron(cloud),
        Cinder(cloud),
        Glance(cloud),
        Swift(cloud),
        Designate(cloud),
        Barbican(cloud),
        Zaqar(cloud),
        Mistral(cloud),
        Zun(cloud),
        Blazar(cloud),
        Magnum(cloud),
        Monasca(cloud),
        Admin(cloud),
        Octavia(cloud),
        Aodh(cloud),
    ):
        routes += service.routes()
    return routes


class CloudRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: CloudHTTPServer

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def log_message(self, format: str, *args: object) -> None:
        LOG.debug("%s %s", self.address_string(), format % args)

    def _handle(self, method: str) -> None:
        service = "nova"
        try:
            region, path = split_region(urlsplit(self.path).path)
            router = self.server.routers.get(region)
            if router is None:
                raise not_found(self.path)
            request = self._request(method, path, region)
            found = router.find(method, request.path)
            if found is None:
                if router.allows(request.path):
                    raise method_not_allowed(method, request.path)
                raise not_found(request.path)
            route, params = found
            service = route.service
            if not route.public and not self.server.keystone.knows(request.headers.get("x-auth-token")):
                raise Unauthorized("The request you have made requires authentication.")
            response = route.handler(request, params)
        except CallTimedOut:
            self.close_connection = True
            return
        except CloudError as error:
            response = error_response(error, service)
        except Exception:
            LOG.exception("simulated cloud: %s %s failed", method, self.path)
            response = error_response(
                CloudError("The server has either erred or is incapable of this."), service
            )
        self._write(response)

    def _request(self, method: str, path: str, region: str) -> ApiRequest:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if raw and self.headers.get("Content-Type", "").startswith("text/plain"):
            body: object = raw.decode("utf-8", "replace")  # Mistral's workflow definitions are YAML text
        else:
            try:
                body = json.loads(raw) if raw else None
            except ValueError as error:
                raise BadRequest(f"Malformed request body: {error}") from error
        host, port = self.server.server_address[:2]
        return ApiRequest(
            method=method,
            path=path.rstrip("/") or "/",
            query=parse_qs(urlsplit(self.path).query, keep_blank_values=True),
            body=body,
            headers={key.lower(): value for key, value in self.headers.items()},
            base_url=f"http://{host!s}:{port}{region_prefix(region)}",
        )

    def _write(self, response: ApiResponse) -> None:
        payload = response.encoded()
        self.send_response(response.status)
        if payload and "Content-Type" not in response.headers:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("X-Openstack-Request-Id", f"req-{uuid.uuid4()}")
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
