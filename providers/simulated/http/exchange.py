"""One HTTP request and its answer, as the service routes see them (no sockets here)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from providers.simulated.errors import BadRequest


@dataclass(frozen=True)
class ApiRequest:
    method: str
    path: str
    query: Mapping[str, list[str]]
    body: Any
    headers: Mapping[str, str]
    base_url: str  # scheme://host:port of this server, for links

    def first(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None

    def all(self, name: str) -> list[str]:
        """Every value of a repeated query parameter, comma lists split (`tags=a,b&tags=c`)."""
        return [part for value in self.query.get(name, ()) for part in value.split(",") if part]

    def url(self, path: str, query: Mapping[str, Any] | None = None) -> str:
        suffix = f"?{urlencode(query, doseq=True)}" if query else ""
        return f"{self.base_url}{path}{suffix}"

    def member(self, key: str) -> dict[str, Any]:
        """The object under `key` in a JSON body (`{"server": {...}}`), or a 400 naming the key."""
        if not isinstance(self.body, Mapping) or not isinstance(self.body.get(key), Mapping):
            raise BadRequest(f"Malformed request body: expected an object under {key!r}.")
        return dict(self.body[key])


@dataclass
class ApiResponse:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        if self.body is None:
            return b""
        if isinstance(self.body, str):
            return self.body.encode()  # a text answer (Swift's HTML error pages) goes as it is
        return json.dumps(self.body, separators=(",", ":")).encode()


def reply(status: int, body: Any = None, **headers: str) -> ApiResponse:
    return ApiResponse(status, body, dict(headers))
