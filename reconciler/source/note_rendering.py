"""A commit's note rendered for people: plain text for a terminal, Markdown for a PR comment, JSON.

A line from another commit is a stack the commit left alone, shown where it stands (`at <commit>`);
in JSON each stack's object carries the `commit` it is at.

Markdown must fit a pull-request comment (GitHub refuses more than 65,536 characters), so it is
rendered in decreasing detail until it fits: every resource name, then the first few per action
with "and N more", then counts only. Only the newest line per stack is shown.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from reconciler.source.note_lines import (
    ABSENT,
    CONVERGENCE,
    COUNT_NAMES,
    MASKED,
    PLAN,
    REPOSITORY_SCOPE,
    NoteLine,
    PlannedActions,
    newest_per_stack,
)

MARKDOWN_LIMIT = 65_000
VALUE_WIDTH = 60  # a property value longer than this is shown cut, with "..."
DETAIL_LEVELS = (None, 20, 0)  # names listed per action: all, the first 20, none


def _stack_label(line: NoteLine) -> str:
    return "(repository)" if line.stack == REPOSITORY_SCOPE else line.stack


def _at(line: NoteLine, commit: str) -> str:
    """Where a stack the commit left alone stands: ` at <its commit>`; nothing for the commit's own."""
    return "" if line.commit == commit else f" at {line.commit[:12]}"


def _counts(line: NoteLine) -> str:
    return ", ".join(f"{name} {line.counts.get(name, 0)}" for name in COUNT_NAMES)


def _plan_summary(plan: PlannedActions) -> str:
    return (
        f"{len(plan.create)} to create, {len(plan.update)} to update, {len(plan.replace)} to replace, "
        f"{len(plan.delete)} to delete, "
        + (f"{len(plan.retain)} to retain, " if plan.retain else "")
        + f"{plan.unchanged} unchanged"
        + (f", {len(plan.deferred)} decided after their dependencies" if plan.deferred else "")
    )


def _limited(names: Sequence[str], limit: int | None) -> tuple[list[str], int]:
    if limit is None or len(names) <= limit:
        return list(names), 0
    return list(names[:limit]), len(names) - limit


def _shown_value(value: Any) -> str:
    if value in (ABSENT, MASKED):
        return str(value)
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 3] + "..."


def _reasons(because: Sequence[str]) -> str:
    return ", ".join(because) or "unknown"


def _with_diff(plan: PlannedActions, resource: str, text: str) -> str:
    changes = plan.diff_of(resource)
    if not changes:
        return text
    shown = "; ".join(f"{c.property}: {_shown_value(c.old)} -> {_shown_value(c.new)}" for c in changes)
    return f"{text}: {shown}"


def _plan_items(plan: PlannedActions, limit: int | None) -> list[tuple[str, str]]:
    """(symbol, text) per planned resource, at most `limit` per action, then an 'and N more' item."""
    groups: list[tuple[str, list[str]]] = [
        ("+", list(plan.create)),
        ("~", [_with_diff(plan, name, name) for name in plan.update]),
        (
            "±",
            [
                _with_diff(
                    plan,
                    r.resource,
                    f"{r.resource} (replaced because of: {', '.join(r.because) or 'unknown'})",
                )
                for r in plan.replace
            ],
        ),
        ("-", list(plan.delete)),
        ("=", [f"{name} (retained: leaves management, stays in the cloud)" for name in plan.retain]),
        ("?", [f"{name} (decided once what it reads from has converged)" for name in plan.deferred]),
    ]
    items: list[tuple[str, str]] = []
    for symbol, names in groups:
        shown, hidden = _limited(names, limit)
        items.extend((symbol, name) for name in shown)
        if hidden:
            items.append((symbol, f"... and {hidden} more"))
    return items


def render_text(commit: str, lines: Sequence[NoteLine]) -> str:
    """A terminal view of the note of `commit`."""
    newest = newest_per_stack(lines)
    if not newest:
        return f"commit {commit[:12]}: no reconciler note\n"
    out = [f"commit {commit[:12]}"]
    for line in newest:
        if line.kind == CONVERGENCE:
            out.append(f"  {_stack_label(line)}: {line.status}{_at(line, commit)} ({_counts(line)})")
        elif line.plan is not None:
            out.append(f"  {_stack_label(line)}: plan: {_plan_summary(line.plan)}")
            out.extend(f"      {symbol} {text}" for symbol, text in _plan_items(line.plan, None))
        else:
            out.append(f"  {_stack_label(line)}: plan: {line.status}")
        label = "failed" if line.status == "FAILED" else "because"
        out.extend(f"      {label}: {failure}" for failure in line.failures)
        out.extend(f"      kept: {kept}" for kept in line.kept)
        out.extend(
            f"      {problem.file}:{problem.line or 0}: {problem.message}" for problem in line.problems
        )
    return "\n".join(out) + "\n"


def _markdown(commit: str, newest: Sequence[NoteLine], limit: int | None) -> str:
    out = [f"### reconciler: commit `{commit[:12]}`", ""]
    converged = [line for line in newest if line.kind == CONVERGENCE]
    if converged:
        out += [
            "| stack | status | " + " | ".join(COUNT_NAMES) + " |",
            "|---|---|" + "---:|" * len(COUNT_NAMES),
        ]
        for line in converged:
            counts = " | ".join(str(line.counts.get(name, 0)) for name in COUNT_NAMES)
            out.append(f"| {_stack_label(line)} | **{line.status}**{_at(line, commit)} | {counts} |")
        out.append("")
    for line in newest:
        label = "failed" if line.status == "FAILED" else "because"
        details = [*(f"{label}: {failure}" for failure in line.failures)]
        details += [f"kept: {kept}" for kept in line.kept]
        details += [
            f"`{problem.file}` line {problem.line or '?'}: {problem.message}" for problem in line.problems
        ]
        shown, hidden = _limited(details, limit)
        if shown or hidden:
            out.append(f"**{_stack_label(line)}** ({line.status}):")
            out += [f"- {detail}" for detail in shown]
            out += [f"- ... and {hidden} more"] if hidden else []
            out.append("")
    for line in newest:
        if line.kind == PLAN and line.plan is not None:
            out += [f"#### plan for `{_stack_label(line)}`: {_plan_summary(line.plan)}", ""]
            out += [f"- `{symbol}` {text}" for symbol, text in _plan_items(line.plan, limit)]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def render_markdown(commit: str, lines: Sequence[NoteLine], limit: int = MARKDOWN_LIMIT) -> str:
    """A PR comment for the note of `commit`, summarized until it is under `limit` characters."""
    newest = newest_per_stack(lines)
    if not newest:
        return f"### reconciler: commit `{commit[:12]}`\n\nNo reconciler note yet.\n"
    text = ""
    for detail in DETAIL_LEVELS:
        text = _markdown(commit, newest, detail)
        if len(text) < limit:
            return text
    note = "\n_(summarized: too many stacks to list within a comment)_\n"
    return text[: limit - len(note) - 1].rsplit("\n", 1)[0] + "\n" + note


def render_json(commit: str, lines: Sequence[NoteLine]) -> str:
    """The newest line per stack as one JSON document."""
    body = {"commit": commit, "stacks": [json.loads(line.to_json()) for line in newest_per_stack(lines)]}
    return json.dumps(body, indent=2, sort_keys=True) + "\n"


RENDERERS: dict[str, Callable[[str, Sequence[NoteLine]], str]] = {
    "text": render_text,
    "markdown": render_markdown,
    "json": render_json,
}
