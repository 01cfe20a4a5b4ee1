"""The HTML pieces of the status page: the layout, tables of stacks, resources, events and history.

Everything shown comes from user input somewhere (stack and resource names, commit subjects, the
cloud's error messages), so every text goes through `html.escape` and every link through
`urllib.parse.quote`. The page carries its style inline and no script: nothing is fetched.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from urllib.parse import quote

from reconciler.daemon.stack_board import DRIFT_REPAIRED, StackEvent, StackView
from reconciler.source.stack_history import CommitEntry
from state.resource_listing import ResourceSummary

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#1d2433}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{padding:.25em .7em;text-align:left;
vertical-align:top;border-bottom:1px solid #d8dde6}th{background:#eef1f6}code{font-size:.92em}
.status{font-weight:600}.CONVERGED,.READY{color:#17773a}.FAILED,.INVALID,.DELETE_FAILED{color:#b42318}
.PROGRESSING,.PENDING,.DEGRADED,.PENDING_APPROVAL{color:#8a5a00}.muted{color:#6b7385}
nav a{margin-right:1em}.graph{border:1px solid #d8dde6;background:#fafbfc}
"""
NO_VALUE = "-"


def text(value: object) -> str:
    """`value` as escaped HTML text."""
    return html.escape(str(value), quote=True)


def stack_link(name: str) -> str:
    return f'<a href="/stacks/{quote(name, safe="")}">{text(name)}</a>'


def when(seconds: float | None) -> str:
    if not seconds:
        return NO_VALUE
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))


def short_commit(commit: str | None) -> str:
    if not commit:
        return f'<span class="muted">{NO_VALUE}</span>'
    return f'<code class="commit" title="{text(commit)}">{text(commit[:12])}</code>'


def status_cell(status: str) -> str:
    safe = text(status)
    return f'<span class="status {safe}">{safe}</span>'


def layout(title: str, body: str) -> bytes:
    """The whole document around `body`."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{text(title)}</title><style>{STYLE}</style></head><body>"
        f'<nav><a href="/">stacks</a><a href="/status">status (JSON)</a><a href="/metrics">metrics</a></nav>'
        f"{body}</body></html>"
    ).encode()


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], css_id: str) -> str:
    """A table; `rows` are HTML already escaped."""
    head = "".join(f"<th>{text(header)}</th>" for header in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<table id="{css_id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def pages_nav(base: str, page: int, pages: int) -> str:
    """Links to the neighbouring pages of a paged table (nothing when one page holds it all)."""
    if pages <= 1:
        return ""
    links = []
    if page > 1:
        links.append(f'<a href="{base}?page={page - 1}">previous</a>')
    links.append(f"page {page} of {pages}")
    if page < pages:
        links.append(f'<a href="{base}?page={page + 1}">next</a>')
    return '<p class="pages">' + " ".join(links) + "</p>"


def stack_rows(views: Sequence[StackView]) -> list[list[str]]:
    return [
        [
            stack_link(view.stack),
            status_cell(view.status),
            short_commit(view.commit),
            text(when(view.last_sync)),
            text(view.drift_repairs) if view.held else NO_VALUE,
            "<br>".join(text(reason) for reason in view.reasons[:3]) or NO_VALUE,
        ]
        for view in views
    ]


def _event_detail(event: StackEvent) -> str:
    if event.event == DRIFT_REPAIRED:
        return "repaired " + ", ".join(event.repaired) if event.repaired else "repaired"
    counts = ", ".join(f"{name} {count}" for name, count in event.counts.items() if count)
    return "; ".join(part for part in (counts, *event.reasons) if part) or NO_VALUE


def event_rows(events: Sequence[StackEvent]) -> list[list[str]]:
    return [
        [
            text(when(event.at)),
            stack_link(event.stack),
            text(event.event),
            short_commit(event.commit),
            status_cell(event.status),
            text(_event_detail(event)),
        ]
        for event in events
    ]


def resource_rows(
    resources: Sequence[ResourceSummary],
    graph: Mapping[str, frozenset[str]] | None,
    redact: Callable[[str], str],
) -> list[list[str]]:
    rows = []
    for resource in resources:
        requires = sorted(graph.get(resource.logical_name, ())) if graph is not None else []
        rows.append(
            [
                f'<span class="resource">{text(resource.logical_name)}</span>',
                f"<code>{text(resource.type)}</code>",
                status_cell(resource.status),
                f"<code>{text(resource.physical_id or NO_VALUE)}</code>",
                text(", ".join(requires) or NO_VALUE),
                text(redact(resource.last_error)) if resource.last_error else NO_VALUE,
            ]
        )
    return rows


def history_rows(entries: Sequence[CommitEntry]) -> list[list[str]]:
    rows = []
    for entry in entries:
        line = entry.line
        counts = ", ".join(f"{name} {count}" for name, count in line.counts.items() if count)
        rows.append(
            [
                short_commit(entry.commit),
                text(entry.subject),
                status_cell(line.status),
                text(when(line.at)),
                text("; ".join(part for part in (counts, *line.failures) if part) or NO_VALUE),
            ]
        )
    return rows
