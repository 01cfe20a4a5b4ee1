"""What software orchestration keeps outside the engine's records, as the provider sees it.

Configs, deployments, wait conditions and the tokens VMs present are facts any daemon of a fleet
must read (an agent polls or signals whichever daemon it reaches), so they live in the state
database. The provider layer may not import `state`: it names here what it needs, and the entry
layer hands it `state.software.SoftwareStore`, which implements this protocol.

Tokens are never stored in clear: callers pass their SHA-256 (`token_digest`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol

IN_PROGRESS, COMPLETE, FAILED = "IN_PROGRESS", "COMPLETE", "FAILED"

# Token kinds: what a token lets its bearer do.
SERVER_TOKEN = "server"  # read one server's deployments metadata
DEPLOYMENT_TOKEN = "deployment"  # signal one deployment's result
HANDLE_TOKEN = "handle"  # signal one wait condition handle
SCALING_TOKEN = "scaling"  # signal one scaling policy (an alarm's alarm_url, a signal_url)


def token_digest(token: str) -> str:
    """How a token is stored and looked up: its SHA-256, so a database dump grants nothing."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class SoftwareObject:
    """A config, a wait condition or a deployment group: a body of JSON under an id."""

    id: str
    kind: str
    stack: str
    body: Mapping[str, Any]
    created_at: float = 0.0


@dataclass(frozen=True)
class Deployment:
    """One deployment of a config to a server, as the server's metadata shows it and as signalled.

    `entry` is the element of the server's `deployments` list (Heat's derived config); `outputs`
    the values the last signal carried (`deploy_stdout`, `deploy_stderr`, `deploy_status_code`
    and the config's declared outputs).
    """

    id: str
    server_id: str
    stack: str
    resource: str
    action: str
    status: str
    config_hash: str
    entry: Mapping[str, Any]
    status_reason: str = ""
    outputs: Mapping[str, Any] = field(default_factory=dict)
    deadline: float | None = None
    group_id: str | None = None
    updated_at: float = 0.0
    actions: Sequence[str] = ()  # the actions it runs for (a DELETE one runs before it goes)
    published: bool = True  # listed in its server's metadata (False: not run for any action yet)


@dataclass(frozen=True)
class HandleSignal:
    """One signal a wait condition handle received (Heat's `status`, `reason`, `data`, `id`)."""

    signal_id: str
    status: str
    reason: str
    data: Any = None


class SoftwareRecords(Protocol):
    """The storage the software provider needs; every call is one transaction."""

    def put_object(self, item: SoftwareObject) -> None:
        """Insert or replace the object with this id."""
        ...

    def objects(self, ids: Collection[str]) -> Mapping[str, SoftwareObject]:
        """Those of `ids` that exist."""
        ...

    def delete_object(self, object_id: str) -> None: ...

    def put_deployment(self, deployment: Deployment, token_digest: str | None) -> None:
        """Insert or replace a deployment (outputs cleared when it runs again); `token_digest`, when
        given, becomes the only token that may signal it. The server's metadata changes with it."""
        ...

    def submit_deployment(self, deployment: Deployment, token_digest: str | None) -> Future[None]:
        """`put_deployment` without waiting for it: its outcome (None, or the write's error) once
        written, set on whatever thread wrote it."""
        ...

    def deployments(self, ids: Collection[str]) -> Mapping[str, Deployment]: ...

    def group_deployments(self, group_id: str) -> Sequence[Deployment]: ...

    def delete_deployment(self, deployment_id: str) -> None:
        """Remove the deployment from its server's metadata and revoke its token."""
        ...

    def issue_token(self, digest: str, kind: str, subject: str) -> None:
        """Let the token with this digest act on `subject` (idempotent)."""
        ...

    def bind_server(self, subject: str, server_id: str) -> None:
        """The server tokens issued for `subject` (a create's marker) read `server_id`'s metadata."""
        ...

    def revoke_server(self, server_id: str) -> None:
        """The server is gone: its tokens stop working."""
        ...

    def revoke_tokens(self, subject: str) -> None: ...

    def handle_signals(self, handle_ids: Collection[str]) -> Mapping[str, Sequence[HandleSignal]]:
        """Every signal received by each handle, oldest first."""
        ...

    def delete_handle_signals(self, handle_id: str) -> None: ...
