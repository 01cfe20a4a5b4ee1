"""The agent API: what VMs reach, on a listen address of its own, apart from the operator endpoints.

- `GET|HEAD /v1/metadata/{token}`: the server's metadata, shaped as Heat's (`deployments` and
  `os-collect-config`), polled the way os-collect-config's `request` collector polls a temp URL:
  `Last-Modified` and `ETag` on every answer, 304 for `If-None-Match` / `If-Modified-Since`.
- `PUT|POST /v1/signal/{token}`: a deployment's result (what heat-config-notify sends for
  TEMP_URL_SIGNAL), or a wait condition handle's signal.
- `POST /v1/signal` with `X-Auth-Token: {token}`: a handle's signal in Heat's `curl_cli` form.
- `POST /v1/signal/{token}` of a scaling policy (`alarm_url`, `signal_url`): an alarm's signal
  (`scaling_signals`).
- `GET /healthz`: the API is listening.

Tokens are looked up by digest in the database, so any daemon of a fleet answers any VM; a token
unknown, revoked or of the wrong kind is a 404 like a path that never existed. Bodies over 1 MiB
are refused with 413 before they are read, bodies that are not JSON objects with 400. Nothing is
logged per request: agents poll every few seconds.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from email.utils import formatdate, parsedate_to_datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any

from providers.heat.agent_links import AgentLinks
from providers.heat.deployment_signals import judge_signal
from providers.heat.server_user_data import collect_config
from providers.heat.software_records import DEPLOYMENT_TOKEN, HANDLE_TOKEN, SCALING_TOKEN, token_digest
from providers.heat.wait_conditions import BadSignal, handle_signal
from reconciler.daemon.http_endpoints import ListenError, ServedOnThread
from reconciler.daemon.pooled_http import PooledHTTPServer
from reconciler.daemon.scaling_signals import PolicyGone, record_scaling_signal
from reconciler.daemon.software_records import signal_row
from state.scaling import ScalingStore
from state.software import MetadataVersion, SoftwareStore

LOG = logging.getLogger(__name__)
MAX_BODY = 1 << 20
METADATA, SIGNAL = "/v1/metadata/", "/v1/signal"


class AgentError(Exception):
    """A request refused with `status`; the message is safe to send back (no token, no secret)."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


NOT_FOUND = AgentError(HTTPStatus.NOT_FOUND, "not found")
IDLE_CONNECTION = 15.0  # seconds


class AgentApi:
    """What the handlers do, apart from HTTP: read metadata, record signals."""

    def __init__(
        self,
        software: SoftwareStore,
        links: AgentLinks,
        scaling: ScalingStore | None = None,
        on_scaling_signal: Callable[[], None] | None = None,
    ) -> None:
        """`on_scaling_signal`: called once a scaling signal is kept (this process' engine acts
        on it at once instead of at its next read)."""
        self._software = software
        self._links = links
        self._scaling = scaling  # without it, scaling policies' URLs answer 404
        self._on_scaling_signal = on_scaling_signal

    def version(self, token: str) -> MetadataVersion:
        """Which server the token reads, and when its metadata last changed (one query)."""
        found = self._software.metadata_version(token_digest(token))
        if found is None:
            raise NOT_FOUND
        return found

    def document(self, token: str, server_id: str) -> bytes:
        """The server's metadata document: its deployments, and where to poll them."""
        found = self._software.server_metadata(server_id)
        document = {
            "deployments": found.entries,
            "os-collect-config": collect_config(self._links.metadata_url(token)),
        }
        return json.dumps(document, sort_keys=True).encode()

    def signal(self, token: str, body: Mapping[str, Any] | None, request_id: str | None = None) -> None:
        digest = token_digest(token)
        # a deployment's result, by far the most frequent signal, is one write with no read before
        if self._deployment_signal(digest, body or {}):
            return
        grant = self._software.grant(digest)
        if grant is None or grant.kind == DEPLOYMENT_TOKEN:
            raise NOT_FOUND
        if grant.kind == HANDLE_TOKEN:
            self._handle_signal(grant.subject, body)
        elif grant.kind == SCALING_TOKEN and self._scaling is not None:
            try:
                record_scaling_signal(self._software, self._scaling, grant.subject, body, request_id)
            except PolicyGone:
                raise NOT_FOUND from None
            if self._on_scaling_signal is not None:
                self._on_scaling_signal()
        else:
            raise NOT_FOUND

    def _deployment_signal(self, digest: str, details: Mapping[str, Any]) -> bool:
        """Keep a deployment's result; False when the token is no (live) deployment's."""

        def judge(entry: Mapping[str, Any]) -> tuple[str, str, Mapping[str, Any]]:
            verdict = judge_signal(details, entry.get("outputs") or [])
            return verdict.status, verdict.reason, verdict.outputs

        return self._software.judge_deployment_signal(digest, judge)

    def _handle_signal(self, handle_id: str, details: Mapping[str, Any] | None) -> None:
        received = len(self._software.handle_signals([handle_id]).get(handle_id, ()))
        try:
            signal = handle_signal(details, received)
        except BadSignal as error:
            raise AgentError(HTTPStatus.BAD_REQUEST, str(error)) from None
        self._software.record_handle_signal(handle_id, signal_row(signal))


def etag_of(token: str, version: MetadataVersion) -> str:
    """An entity tag that changes exactly when the document does: with the server's metadata
    (`modified_at` moves at every change) and with the URL (the document names it)."""
    text = f"{token}:{version.server_id}:{version.modified_at}"
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'


@functools.lru_cache(maxsize=4096)
def http_date(seconds: int) -> str:
    """An HTTP date (`Last-Modified`, `Date`); a fleet's polls name the same few seconds over and
    over, and formatting one costs more than the rest of a 304."""
    return formatdate(seconds, usegmt=True)


def not_modified(match: str | None, since: str | None, etag: str, modified_at: float | None) -> bool:
    """Whether the agent's `If-None-Match` or `If-Modified-Since` says it holds this version already."""
    if match is not None:
        return etag in [candidate.strip() for candidate in match.split(",")] or match.strip() == "*"
    if since is None or modified_at is None:
        return False
    try:
        return int(modified_at) <= parsedate_to_datetime(since).timestamp()
    except (TypeError, ValueError):
        return False


class _AgentHttpServer(PooledHTTPServer):
    # a fleet of agents connects at once (a stack's servers booted together): with the default
    # backlog of 5, connections past it are reset
    request_queue_size = 1024
    api: AgentApi


def _handler() -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "reconciler-agent-api"
        protocol_version = "HTTP/1.1"  # agents keep their connection between polls
        # headers and body go out in two writes: without TCP_NODELAY the second waits for the
        # client's delayed ACK (40 ms) on a kept-alive connection
        disable_nagle_algorithm = True
        timeout = IDLE_CONNECTION  # a kept-alive connection idle this long frees its handler thread

        def date_time_string(self, timestamp: float | None = None) -> str:
            return http_date(int(time.time() if timestamp is None else timestamp))

        def do_HEAD(self) -> None:
            self._metadata(send_body=False)

        def do_GET(self) -> None:
            if self.path == "/healthz":
                self._reply(HTTPStatus.OK, b"ok\n", "text/plain")
            else:
                self._metadata(send_body=True)

        def do_PUT(self) -> None:
            self._signal()

        def do_POST(self) -> None:
            self._signal()

        def _metadata(self, *, send_body: bool) -> None:
            """A poll: answered from the version alone when the agent holds it (304) or asks HEAD."""
            try:
                if not self.path.startswith(METADATA):
                    raise NOT_FOUND
                token = self.path.removeprefix(METADATA).split("?")[0]
                version = self._api().version(token)
            except AgentError as error:
                self._refuse(error)
                return
            etag = etag_of(token, version)
            headers = {"ETag": etag}
            if version.modified_at is not None:
                headers["Last-Modified"] = http_date(int(version.modified_at))
            match, since = self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")
            if not_modified(match, since, etag, version.modified_at):
                self._reply(HTTPStatus.NOT_MODIFIED, b"", "application/json", headers, send_body=False)
            elif not send_body:
                self._reply(HTTPStatus.OK, b"", "application/json", headers, send_body=False)
            else:
                body = self._api().document(token, version.server_id)
                self._reply(HTTPStatus.OK, body, "application/json", headers)

        def _signal(self) -> None:
            try:
                token = self._signal_token()
                self._api().signal(token, self._json_body(), self.headers.get("X-Openstack-Request-Id"))
            except AgentError as error:
                self._refuse(error)
                return
            self._reply(HTTPStatus.OK, b"{}", "application/json")

        def _api(self) -> AgentApi:
            assert isinstance(self.server, _AgentHttpServer)
            return self.server.api

        def _signal_token(self) -> str:
            path = self.path.split("?")[0].rstrip("/")
            if path == SIGNAL:
                token = self.headers.get("X-Auth-Token") or ""
            elif path.startswith(SIGNAL + "/"):
                token = path.removeprefix(SIGNAL + "/")
            else:
                raise NOT_FOUND
            if not token or "/" in token:
                raise NOT_FOUND
            return token

        def _json_body(self) -> dict[str, Any] | None:
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                raise AgentError(HTTPStatus.BAD_REQUEST, "Content-Length is not a number") from None
            if length > MAX_BODY:
                self.close_connection = True  # the body is left unread
                raise AgentError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "body over 1 MiB")
            raw = self.rfile.read(length) if length else b""
            if not raw.strip():
                return None
            try:
                parsed = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                raise AgentError(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
            if not isinstance(parsed, dict):
                raise AgentError(HTTPStatus.BAD_REQUEST, "the body is not a JSON object")
            return parsed

        def _refuse(self, error: AgentError) -> None:
            message = json.dumps({"error": str(error)}).encode()
            self._reply(error.status, message, "application/json")

        def _reply(
            self,
            status: HTTPStatus,
            body: bytes,
            content_type: str,
            headers: Mapping[str, str] | None = None,
            *,
            send_body: bool = True,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            if send_body:  # a 304 or an answer to HEAD has no body, and names no length
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            """Requests are not logged: a fleet of agents polling would drown the journal."""

    return Handler


class AgentServer(ServedOnThread):
    """The agent API on its own thread; `address` is the bound (host, port), port 0 resolved.

    `links` are the URLs VMs are given: under `agent_url`, else under the bound address, known
    once bound (so port 0 works). `make_api` builds the handlers' `AgentApi` from them.
    """

    def __init__(
        self, host: str, port: int, make_api: Callable[[AgentLinks], AgentApi], agent_url: str = ""
    ) -> None:
        try:
            server = _AgentHttpServer((host, port), _handler())
        except OSError as error:
            raise ListenError(host, port, error) from None
        super().__init__(server, "agent-api")
        bound_host, bound_port = self.address
        self.links = AgentLinks(agent_url or f"http://{bound_host}:{bound_port}")
        server.api = make_api(self.links)
