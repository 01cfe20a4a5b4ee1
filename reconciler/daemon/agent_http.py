"""The agent API's HTTP side: an ASGI application, served by `agent_server`.

A poll whose version this daemon remembers as current is answered on the event loop itself, with
no thread and no database read: that is nearly every poll of a settled fleet. Everything that may
wait on the database (a version to read, a document, a signal to record) runs on a pool of
threads, so a slow database holds up no poll answered from memory.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, TypeVar

from reconciler.daemon.agent_api import (
    MAX_BODY,
    METADATA,
    NOT_FOUND,
    SIGNAL,
    AgentApi,
    AgentError,
    etag_of,
    http_date,
    not_modified,
)
from state.software import MetadataVersion

LOG = logging.getLogger(__name__)

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Headers = Sequence[tuple[bytes, bytes]]
T = TypeVar("T")

JSON = b"application/json"


@dataclass(frozen=True)
class Answer:
    """A response; without `send_body` (a 304, an answer to HEAD) it names no length either."""

    status: HTTPStatus
    body: bytes = b""
    headers: Headers = ()
    content_type: bytes = JSON
    send_body: bool = True
    close: bool = False  # the request's body is left unread: the connection cannot serve another


def header(headers: Headers, name: bytes) -> str | None:
    """A request header's value (`name` in lower case, as ASGI gives them)."""
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


class AgentHttp:
    """The ASGI application: routes, conditional polls, body limits; `AgentApi` does the rest."""

    def __init__(self, api: AgentApi, blocking: Executor) -> None:
        self._api = api
        self._blocking = blocking

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            answer = await self._answer(scope, receive)
        except AgentError as error:
            answer = _refusal(error)
        except Exception as error:  # the database failing, say: say nothing of it to the VM
            LOG.error("agent API: %s failed: %s", scope["method"], type(error).__name__)
            answer = Answer(HTTPStatus.INTERNAL_SERVER_ERROR, b'{"error": "internal error"}')
        await _send(send, answer)

    async def _answer(self, scope: Message, receive: Receive) -> Answer:
        method, headers = scope["method"], scope["headers"]
        path = scope["raw_path"].decode("latin-1")  # the token as sent, never unquoted
        if method == "GET" and path == "/healthz":
            return Answer(HTTPStatus.OK, b"ok\n", content_type=b"text/plain")
        if method in ("GET", "HEAD"):
            return await self._poll(path, headers, send_body=method == "GET")
        if method in ("PUT", "POST"):
            return await self._signal(path, headers, receive)
        raise AgentError(HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed")

    async def _poll(self, path: str, headers: Headers, *, send_body: bool) -> Answer:
        """A poll: answered from the version alone when the agent holds it (304) or asks HEAD."""
        if not path.startswith(METADATA):
            raise NOT_FOUND
        token = path.removeprefix(METADATA)
        version = self._api.remembered_version(token)
        if version is None:
            version = await self._run(self._api.version, token)
        validators = _validators(token, version)
        etag = validators[0][1].decode()
        match, since = header(headers, b"if-none-match"), header(headers, b"if-modified-since")
        if not_modified(match, since, etag, version.modified_at):
            return Answer(HTTPStatus.NOT_MODIFIED, headers=validators, send_body=False)
        if not send_body:
            return Answer(HTTPStatus.OK, headers=validators, send_body=False)
        read, document = await self._run(self._api.document, token)
        return Answer(HTTPStatus.OK, document, _validators(token, read))

    async def _signal(self, path: str, headers: Headers, receive: Receive) -> Answer:
        token = _signal_token(path, headers)
        details = await _json_body(headers, receive)
        # a deployment's result waits for its batch's commit with no thread of its own
        if await asyncio.wrap_future(self._api.deployment_signal(token, details)) is None:
            request_id = header(headers, b"x-openstack-request-id")
            await self._run(self._api.other_signal, token, details, request_id)
        return Answer(HTTPStatus.OK, b"{}")

    async def _run(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` on the blocking pool: it may wait on the database."""
        return await asyncio.get_running_loop().run_in_executor(self._blocking, work, *args)


def _validators(token: str, version: MetadataVersion) -> list[tuple[bytes, bytes]]:
    """`ETag` first, then `Last-Modified` when the server's metadata ever changed."""
    validators = [(b"etag", etag_of(token, version).encode())]
    if version.modified_at is not None:
        validators.append((b"last-modified", http_date(int(version.modified_at)).encode()))
    return validators


def _signal_token(path: str, headers: Headers) -> str:
    path = path.split("?", maxsplit=1)[0].rstrip("/")
    if path == SIGNAL:
        token = header(headers, b"x-auth-token") or ""
    elif path.startswith(SIGNAL + "/"):
        token = path.removeprefix(SIGNAL + "/")
    else:
        raise NOT_FOUND
    if not token or "/" in token:
        raise NOT_FOUND
    return token


async def _json_body(headers: Headers, receive: Receive) -> dict[str, Any] | None:
    """The body as a JSON object, None when empty; 413 over `MAX_BODY` (announced or read), 400
    when it is not a JSON object."""
    announced = header(headers, b"content-length")
    try:
        if announced is not None and int(announced) > MAX_BODY:
            raise _too_large()
    except ValueError:
        raise AgentError(HTTPStatus.BAD_REQUEST, "Content-Length is not a number") from None
    raw = bytearray()
    more = True
    while more:
        message = await receive()
        raw += message.get("body", b"")
        if len(raw) > MAX_BODY:
            raise _too_large()
        more = message["type"] == "http.request" and bool(message.get("more_body"))
    if not raw.strip():
        return None
    try:
        parsed = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise AgentError(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
    if not isinstance(parsed, dict):
        raise AgentError(HTTPStatus.BAD_REQUEST, "the body is not a JSON object")
    return parsed


def _too_large() -> AgentError:
    return AgentError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "body over 1 MiB")


def _refusal(error: AgentError) -> Answer:
    body = json.dumps({"error": str(error)}).encode()
    return Answer(error.status, body, close=error.status == HTTPStatus.REQUEST_ENTITY_TOO_LARGE)


async def _send(send: Send, answer: Answer) -> None:
    headers = [(b"content-type", answer.content_type), *answer.headers]
    if answer.send_body:
        headers.append((b"content-length", str(len(answer.body)).encode()))
    if answer.close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": int(answer.status), "headers": headers})
    await send({"type": "http.response.body", "body": answer.body if answer.send_body else b""})
