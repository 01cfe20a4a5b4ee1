"""A stack's dependency graph drawn as inline SVG, laid out in columns with no script and no fetch.

Each resource sits in the column of its longest chain of requirements (the ones it needs to its
left), so every edge runs left to right, in the order the engine acts. Names are user input:
every text is escaped, and long names are shortened on the drawing (the table beside it has them
whole). Past `MAX_DRAWN` resources a drawing says nothing a person can read, so none is made.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

MAX_DRAWN = 300
COLUMN_WIDTH, ROW_HEIGHT = 230, 34
BOX_WIDTH, BOX_HEIGHT = 190, 24
LABEL_CHARACTERS = 26
STATUS_COLOURS: Mapping[str, str] = {
    "READY": "#d4f4dd",
    "FAILED": "#f9d0d0",
    "DELETE_FAILED": "#f9d0d0",
    "PENDING_APPROVAL": "#fde9c4",
}
OTHER_COLOUR = "#e4e8f0"


def columns_of(graph: Mapping[str, frozenset[str]]) -> dict[str, int]:
    """Resource -> its column: 0 for one requiring nothing, else one past its furthest requirement.
    Requirements outside the graph are ignored; resources on a cycle (never valid) go to column 0."""
    needs = {name: {other for other in graph[name] if other in graph and other != name} for name in graph}
    needed_by: dict[str, list[str]] = {name: [] for name in graph}
    for name, required in needs.items():
        for other in required:
            needed_by[other].append(name)
    waiting = {name: len(required) for name, required in needs.items()}
    ready = sorted(name for name, count in waiting.items() if count == 0)
    column: dict[str, int] = {}
    while ready:
        name = ready.pop()
        column[name] = 1 + max((column[other] for other in needs[name]), default=-1)
        for dependent in needed_by[name]:
            waiting[dependent] -= 1
            if waiting[dependent] == 0:
                ready.append(dependent)
    for name in graph:
        column.setdefault(name, 0)
    return column


def _label(name: str) -> str:
    return name if len(name) <= LABEL_CHARACTERS else name[: LABEL_CHARACTERS - 1] + "…"


def dependency_svg(graph: Mapping[str, frozenset[str]], statuses: Mapping[str, str]) -> str | None:
    """The SVG of `graph` (resource -> what it requires), boxes tinted by status; None past MAX_DRAWN."""
    if not graph or len(graph) > MAX_DRAWN:
        return None
    column = columns_of(graph)
    rows: dict[int, int] = {}
    where: dict[str, tuple[int, int]] = {}
    for name in sorted(graph, key=lambda n: (column[n], n)):
        row = rows.get(column[name], 0)
        rows[column[name]] = row + 1
        where[name] = (10 + column[name] * COLUMN_WIDTH, 10 + row * ROW_HEIGHT)
    width = 20 + (max(column.values()) + 1) * COLUMN_WIDTH
    height = 20 + max(rows.values()) * ROW_HEIGHT
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="dependency graph">'
    ]
    for name in sorted(graph):
        x, y = where[name]
        for needed in sorted(graph[name]):
            if needed in where:
                nx, ny = where[needed]
                parts.append(
                    f'<line x1="{nx + BOX_WIDTH}" y1="{ny + BOX_HEIGHT // 2}" x2="{x}" '
                    f'y2="{y + BOX_HEIGHT // 2}" stroke="#7a869a" marker-end="url(#arrow)"/>'
                )
    parts.append(
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
        'markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="#7a869a"/></marker></defs>'
    )
    for name in sorted(graph):
        x, y = where[name]
        colour = STATUS_COLOURS.get(statuses.get(name, ""), OTHER_COLOUR)
        text = html.escape(name)
        parts.append(
            f'<g class="node" data-resource="{text}"><title>{text} ({html.escape(statuses.get(name, "-"))})'
            f'</title><rect x="{x}" y="{y}" width="{BOX_WIDTH}" height="{BOX_HEIGHT}" rx="4" '
            f'fill="{colour}" stroke="#56627a"/><text x="{x + 6}" y="{y + 16}" font-size="12">'
            f"{html.escape(_label(name))}</text></g>"
        )
    parts.append("</svg>")
    return "".join(parts)
