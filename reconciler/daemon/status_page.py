"""The read-only status page on the operator address: `/` and `/stacks/NAME`.

`/` lists every declared stack with its status and the commit it is at (a page of `STACKS_PER_PAGE`
at a time), how many stand in each status, and the newest events. `/stacks/NAME` shows one stack:
its resources (a page at a time, read without their values), its dependency graph as inline SVG
while this worker runs it, its recent events and its history per commit from the notes. Nothing
on either page changes anything: there are no forms and no script, and the answers forbid loading
anything from anywhere (Content-Security-Policy), so the page works on a host with no internet.

Each answer reads what it shows when asked: the board and the store for stacks, the store for a
page of resources, the notes for history; none of it waits for the engine's lock.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import parse_qs, unquote, urlsplit

from reconciler.daemon.dependency_svg import MAX_DRAWN, dependency_svg
from reconciler.daemon.page_sections import (
    event_rows,
    history_rows,
    layout,
    pages_nav,
    resource_rows,
    short_commit,
    stack_rows,
    status_cell,
    table,
    text,
)
from reconciler.daemon.stack_board import StackEvent, StackView
from reconciler.source.stack_history import CommitEntry
from state.resource_listing import ResourcePage

STACKS_PER_PAGE = 200
RESOURCES_PER_PAGE = 500
EVENTS_SHOWN = 50
HISTORY_SHOWN = 20
STACK_HEADERS = ("stack", "status", "commit", "last sync", "drift repairs", "reason")
EVENT_HEADERS = ("at", "stack", "event", "commit", "status", "detail")
RESOURCE_HEADERS = ("resource", "type", "status", "physical id", "requires", "last error")
HISTORY_HEADERS = ("commit", "subject", "status", "noted", "detail")
PAGE_HEADERS: Mapping[str, str] = {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


@dataclass(frozen=True)
class PageSources:
    """Where the page reads what it shows."""

    stacks: Callable[[], tuple[str | None, Sequence[StackView]]]  # tracked commit, declared stacks
    events: Callable[[int, str | None], Sequence[StackEvent]]  # newest first, of one stack or all
    resources: Callable[[str, int, int], ResourcePage]  # stack, offset, limit
    graph: Callable[[str], Mapping[str, frozenset[str]] | None]  # None: not run by this worker
    history: Callable[[str, int], Sequence[CommitEntry]]  # newest first
    redact: Callable[[str, str], str]  # (stack, text) -> text without the stack's hidden values


@dataclass(frozen=True)
class PageAnswer:
    status: HTTPStatus
    body: bytes


def _page_number(query: str) -> int:
    values = parse_qs(query).get("page", ["1"])
    return int(values[0]) if values[0].isdigit() and int(values[0]) > 0 else 1


class StatusPage:
    """Answers GET requests for the page's paths; `answer` returns None for any other path."""

    def __init__(self, sources: PageSources) -> None:
        self.sources = sources

    def answer(self, target: str) -> PageAnswer | None:
        parts = urlsplit(target)
        if parts.path == "/":
            return PageAnswer(HTTPStatus.OK, self.overview(_page_number(parts.query)))
        if parts.path.startswith("/stacks/") and len(parts.path) > len("/stacks/"):
            return self.stack(unquote(parts.path[len("/stacks/") :]), _page_number(parts.query))
        return None

    def overview(self, page: int) -> bytes:
        tracked, views = self.sources.stacks()
        pages = max(1, math.ceil(len(views) / STACKS_PER_PAGE))
        page = min(page, pages)
        shown = views[(page - 1) * STACKS_PER_PAGE : page * STACKS_PER_PAGE]
        counts = Counter(view.status for view in views)
        summary = ", ".join(f"{status_cell(status)} {count}" for status, count in sorted(counts.items()))
        events = self.sources.events(EVENTS_SHOWN, None)
        body = (
            f"<h1>reconciler</h1><p>tracked commit {short_commit(tracked)} &middot; "
            f'<span id="stack-count">{len(views)}</span> stacks: {summary or "none declared"}</p>'
            f"<h2>Stacks</h2>{pages_nav('/', page, pages)}"
            f"{table(STACK_HEADERS, stack_rows(shown), 'stacks')}"
            f"<h2>Recent events</h2>"
            + (table(EVENT_HEADERS, event_rows(events), "events") if events else "<p>No events yet.</p>")
        )
        return layout("reconciler: stacks", body)

    def stack(self, name: str, page: int) -> PageAnswer:
        _tracked, views = self.sources.stacks()
        view = next((view for view in views if view.stack == name), None)
        if view is None:
            body = f"<h1>No stack {text(name)}</h1><p>It is not declared at the tracked commit.</p>"
            return PageAnswer(HTTPStatus.NOT_FOUND, layout("reconciler: no such stack", body))
        return PageAnswer(HTTPStatus.OK, layout(f"reconciler: {name}", self._stack_body(view, page)))

    def _stack_body(self, view: StackView, page: int) -> str:
        name = view.stack
        listing = self.sources.resources(name, (page - 1) * RESOURCES_PER_PAGE, RESOURCES_PER_PAGE)
        pages = max(1, math.ceil(listing.total / RESOURCES_PER_PAGE))
        if page > pages:
            page = pages
            listing = self.sources.resources(name, (page - 1) * RESOURCES_PER_PAGE, RESOURCES_PER_PAGE)
        graph = self.sources.graph(name)
        statuses = {resource.logical_name: resource.status for resource in listing.resources}
        events = self.sources.events(EVENTS_SHOWN, name)
        history = self.sources.history(name, HISTORY_SHOWN)
        reasons = "".join(f"<li>{text(reason)}</li>" for reason in view.reasons)
        base = f"/stacks/{text(name)}"
        return (
            f'<h1>Stack <span id="stack-name">{text(name)}</span></h1>'
            f"<p>{status_cell(view.status)} at commit {short_commit(view.commit)}</p>"
            + (f"<ul class='reasons'>{reasons}</ul>" if reasons else "")
            + f"<h2>Resources ({listing.total})</h2>{pages_nav(base, page, pages)}"
            + table(
                RESOURCE_HEADERS,
                resource_rows(listing.resources, graph, lambda line: self.sources.redact(name, line)),
                "resources",
            )
            + "<h2>Dependency graph</h2>"
            + self._graph_section(graph, statuses)
            + "<h2>Recent events</h2>"
            + (table(EVENT_HEADERS, event_rows(events), "events") if events else "<p>No events yet.</p>")
            + "<h2>History per commit</h2>"
            + (
                table(HISTORY_HEADERS, history_rows(history), "history")
                if history
                else "<p>No notes yet.</p>"
            )
        )

    @staticmethod
    def _graph_section(graph: Mapping[str, frozenset[str]] | None, statuses: Mapping[str, str]) -> str:
        if graph is None:
            return "<p>Drawn by the worker that runs this stack; this one does not.</p>"
        drawing = dependency_svg(graph, statuses)
        if drawing is None:
            return (
                f"<p>{len(graph)} resources: past {MAX_DRAWN} a drawing is unreadable; "
                "the resources table lists what each requires.</p>"
            )
        return f'<div class="graph-box">{drawing}</div>'
