"""The agent API: what VMs reach, on a listen address of its own, apart from the operator endpoints.
This module is what it does; `agent_http` is its HTTP side and `agent_server` its listener.

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
unknown, revoked or of the wrong kind is a 404 like a path that never existed. A poll holding the
current version is answered from what this daemon remembers (`state.metadata_index`), kept current
by the database's change counters; a document is always read afresh. Bodies over 1 MiB are refused
with 413 before they are read, bodies that are not JSON objects with 400. Nothing is logged per
request: agents poll every few seconds.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import Future
from email.utils import formatdate, parsedate_to_datetime
from http import HTTPStatus
from typing import Any

from providers.heat.agent_links import AgentLinks
from providers.heat.deployment_signals import judge_signal
from providers.heat.server_user_data import collect_config
from providers.heat.software_records import DEPLOYMENT_TOKEN, HANDLE_TOKEN, SCALING_TOKEN, token_digest
from providers.heat.wait_conditions import BadSignal, handle_signal
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


class AgentApi:
    """What the handlers do, apart from HTTP: read metadata, record signals."""

    def __init__(
        self,
        software: SoftwareStore,
        links: AgentLinks,
        scaling: ScalingStore | None = None,
        on_scaling_signal: Callable[[], None] | None = None,
        on_resource_signal: Callable[[Collection[str] | None], None] | None = None,
    ) -> None:
        """`on_scaling_signal`: called once a scaling signal is kept (this process' engine acts
        on it at once instead of at its next read); `on_resource_signal`, once a deployment's or a
        handle's is, with the physical ids of the resources waiting for it (a deployment's: its
        own, or its group's; a handle's: None, any resource waiting for a signal), which the
        engine then observes at once, not at its slow pace."""
        self._software = software
        self._links = links
        self._scaling = scaling  # without it, scaling policies' URLs answer 404
        self._on_scaling_signal = on_scaling_signal
        self._on_resource_signal = on_resource_signal

    def remembered_version(self, token: str) -> MetadataVersion | None:
        """The version of the token's metadata if this daemon remembers it as current (no I/O);
        None: ask `version`."""
        return self._software.remembered_metadata_version(token_digest(token))

    def version(self, token: str) -> MetadataVersion:
        """Which server the token reads, and when its metadata last changed (remembered, or one
        query)."""
        found = self._software.metadata_version(token_digest(token))
        if found is None:
            raise NOT_FOUND
        return found

    def document(self, token: str) -> tuple[MetadataVersion, bytes]:
        """The server's metadata document (its deployments, and where to poll them) and its
        version, both read afresh: a token revoked by any daemon reads nothing from then on."""
        read = self._software.metadata_document(token_digest(token))
        if read is None:
            raise NOT_FOUND
        version, found = read
        document = {
            "deployments": found.entries,
            "os-collect-config": collect_config(self._links.metadata_url(token)),
        }
        return version, json.dumps(document, sort_keys=True).encode()

    def signal(self, token: str, body: Mapping[str, Any] | None, request_id: str | None = None) -> None:
        """Record a signal: a deployment's result, a handle's signal or a scaling alarm."""
        if self.deployment_signal(token, body).result() is None:
            self.other_signal(token, body, request_id)

    def deployment_signal(self, token: str, body: Mapping[str, Any] | None) -> Future[str | None]:
        """A deployment's result, by far the most frequent signal: queued for the next batch of
        them, with no read before; done once committed with the physical id of the resource that
        waits for it, None when the token is no (live) deployment's (try `other_signal`)."""

        details = body or {}

        def judge(entry: Mapping[str, Any]) -> tuple[str, str, Mapping[str, Any]]:
            verdict = judge_signal(details, entry.get("outputs") or [])
            return verdict.status, verdict.reason, verdict.outputs

        kept = self._software.submit_deployment_signal(token_digest(token), judge)
        ring = self._on_resource_signal
        if ring is not None:

            def rang(done: Future[str | None]) -> None:
                if not done.cancelled() and done.exception() is None:
                    waiter = done.result()
                    if waiter is not None:
                        ring((waiter,))

            kept.add_done_callback(rang)
        return kept

    def other_signal(self, token: str, body: Mapping[str, Any] | None, request_id: str | None = None) -> None:
        """A signal for a token that is no deployment's: a handle's or a scaling policy's."""
        grant = self._software.grant(token_digest(token))
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

    def _handle_signal(self, handle_id: str, details: Mapping[str, Any] | None) -> None:
        received = len(self._software.handle_signals([handle_id]).get(handle_id, ()))
        try:
            signal = handle_signal(details, received)
        except BadSignal as error:
            raise AgentError(HTTPStatus.BAD_REQUEST, str(error)) from None
        self._software.record_handle_signal(handle_id, signal_row(signal))
        if self._on_resource_signal is not None:
            self._on_resource_signal(None)  # the wait condition waiting is not the handle


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
