"""Marker pagination as the services do it: `limit` (capped at the service maximum), `marker`
(the last id seen), and a `next` link only when more items remain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.http.exchange import ApiRequest
from providers.simulated.inventory import Body

MAX_LIMIT = 1000


@dataclass(frozen=True)
class Page:
    items: list[Body]
    next_url: str | None


def page_of(request: ApiRequest, items: Sequence[Body], path: str) -> Page:
    limit_text = request.first("limit")
    try:
        limit = min(int(limit_text), MAX_LIMIT) if limit_text else MAX_LIMIT
    except ValueError as error:
        raise BadRequest(f"Invalid limit {limit_text!r}: must be an integer.") from error
    start = 0
    marker = request.first("marker")
    if marker:
        position = next((index for index, item in enumerate(items) if item["id"] == marker), None)
        if position is None:
            raise BadRequest(f"marker [{marker}] not found")
        start = position + 1
    chosen = list(items[start : start + max(limit, 0)])
    if start + len(chosen) >= len(items) or not chosen:
        return Page(chosen, None)
    query: dict[str, Any] = {key: values for key, values in request.query.items() if key != "marker"}
    query["limit"] = str(limit)
    query["marker"] = chosen[-1]["id"]
    return Page(chosen, request.url(path, query))


def links(page: Page) -> list[dict[str, str]]:
    return [{"rel": "next", "href": page.next_url}] if page.next_url else []
