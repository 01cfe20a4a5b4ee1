"""Marker pagination as the services do it: `limit` (capped at the service maximum), `marker`
(the last id seen), and a next link only when more items remain. The page itself is cut by
`SimulatedCloud.page`, which copies only the items shown.
"""

from __future__ import annotations

from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.http.exchange import ApiRequest
from providers.simulated.inventory import Body

MAX_LIMIT = 1000


def page_limit(request: ApiRequest) -> int:
    """The page size asked for, at most MAX_LIMIT; 400 when it is not a number."""
    text = request.first("limit")
    try:
        return min(int(text), MAX_LIMIT) if text else MAX_LIMIT
    except ValueError as error:
        raise BadRequest(f"Invalid limit {text!r}: must be an integer.") from error


def next_url(request: ApiRequest, items: list[Body], more: bool) -> str | None:
    """The link to the page after `items` (the same query, a new marker), when there is one."""
    if not more or not items:
        return None
    query: dict[str, Any] = {key: values for key, values in request.query.items() if key != "marker"}
    query["limit"] = str(page_limit(request))
    query["marker"] = items[-1]["id"]
    return request.url(request.path, query)


def links(url: str | None) -> list[dict[str, str]]:
    return [{"rel": "next", "href": url}] if url else []
