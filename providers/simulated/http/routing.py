"""A route table: method and path pattern to handler, with `{name}` segments captured."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from providers.simulated.http.exchange import ApiRequest, ApiResponse

Handler = Callable[[ApiRequest, Mapping[str, str]], ApiResponse]


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    service: str  # which service's error body shape to answer with
    public: bool  # answered without a token (log in, version discovery, the admin API)

    @classmethod
    def of(cls, method: str, template: str, handler: Handler, service: str, *, public: bool = False) -> Route:
        regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template.rstrip("/") or "/")
        return cls(method, re.compile(f"^{regex}/?$"), handler, service, public)


class Router:
    def __init__(self, routes: list[Route]) -> None:
        self._routes = routes

    def find(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        for route in self._routes:
            if route.method != method:
                continue
            match = route.pattern.match(path)
            if match:
                return route, match.groupdict()
        return None

    def allows(self, path: str) -> bool:
        return any(route.pattern.match(path) for route in self._routes)
