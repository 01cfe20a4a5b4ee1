"""A record of the HTTP requests a connection sends, taken from the wire by a `requests` hook.

Used by the tests (which requests does the provider send, with which body keys) and by the
benchmarks (how many requests per resource). It records the method, the path, the query keys and
the body's keys, never header or body values, so no token, password or user data is kept.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import requests


@dataclass(frozen=True)
class SentRequest:
    method: str
    path: str
    query_keys: frozenset[str]
    body_keys: frozenset[str]  # the top-level keys, and for a wrapped body ({"server": {...}}) its keys
    status: int


class RequestLog:
    """Every request sent through the `requests.Session`s it is attached to, in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: list[SentRequest] = []

    def attach(self, connection: Any) -> RequestLog:
        """Record what an `openstack.connection.Connection` sends from now on."""
        session: requests.Session = connection.session.session
        session.hooks.setdefault("response", []).append(self._record)
        return self

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()

    def count(self, method: str | None = None, path_contains: str = "") -> int:
        with self._lock:
            return sum(
                1
                for sent in self.requests
                if (method is None or sent.method == method) and path_contains in sent.path
            )

    def by_method(self) -> Counter[str]:
        with self._lock:
            return Counter(sent.method for sent in self.requests)

    def _record(self, response: requests.Response, *args: Any, **kwargs: Any) -> requests.Response:
        request = response.request
        url = urlsplit(request.url or "")
        sent = SentRequest(
            method=request.method or "",
            path=url.path,
            query_keys=frozenset(key for key, _ in parse_qsl(url.query)),
            body_keys=body_keys(request.body),
            status=response.status_code,
        )
        with self._lock:
            self.requests.append(sent)
        return response


def body_keys(body: Any) -> frozenset[str]:
    if not body:
        return frozenset()
    try:
        decoded = json.loads(body)
    except (TypeError, ValueError):
        return frozenset()
    if not isinstance(decoded, dict):
        return frozenset()
    keys = set(decoded)
    for key, value in decoded.items():
        if isinstance(value, dict):
            keys.update(f"{key}.{inner}" for inner in value)
    return frozenset(keys)
