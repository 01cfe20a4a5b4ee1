"""A commit's note rendered for people: plain text for a terminal, Markdown for a PR comment, JSON.

A line from another commit is a stack the commit left alone, shown where it stands (`at <commit>`);
in JSON each stack's object carries the `commit` it is at.

Markdown must fit a pull-request comment (GitHub refuses more than 65,536 characters), so it is
rendered in decreasing detail until it fits: every resource name, then the first few per action
with "and N more", then counts only. Only the newest line per stack is shown.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from reconciler.plan.unknown_values import KNOWN_AFTER_APPLY
from reconciler.source.note_lines import (
    ABSENT,
    CONVERGENCE,
    COUNT_NAMES,
    MASKED,
    PLAN,
    REPOSITORY_SCOPE,
    NoteLine,
    PlannedActions,
    PlannedChange,
    PropertyChange,
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
    retained = sum(1 for entry in plan.delete if entry.retained)
    return (
        f"{len(plan.create)} to create, {len(plan.update)} to update, {len(plan.replace)} to replace, "
        f"{len(plan.delete) - retained} to delete, "
        + (f"{retained} to retain, " if retained else "")
        + f"{plan.unchanged} unchanged"
    )


T = TypeVar("T")


def _limited(names: Sequence[T], limit: int | None) -> tuple[list[T], int]:
    if limit is None or len(names) <= limit:
        return list(names), 0
    return list(names[:limit]), len(names) - limit


def _shown_value(value: Any) -> str:
    if value in (ABSENT, MASKED, KNOWN_AFTER_APPLY):
        return str(value)
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 3] + "..."


def _change_text(change: PropertyChange) -> str:
    return f"{change.property}: {_shown_value(change.old)} -> {_shown_value(change.new)}"


def _entry_text(action: str, entry: PlannedChange) -> str:
    """An entry in one line: its name, why it is replaced or kept, what it holds, its changes."""
    text = entry.resource
    if action == "replace":
        text += f" (replaced because of: {', '.join(entry.because) or 'unknown'})"
    if entry.retained:
        text += " (retained: leaves management, stays in the cloud)"
    if entry.holds:
        held = ", ".join(f"{HELD_SYMBOLS.get(h.action, h.action)}{h.resource}" for h in entry.holds)
        text += f" [holds: {held}]"
    if entry.changes:
        text += ": " + "; ".join(_change_text(change) for change in entry.changes)
    return text


SYMBOLS = {"create": "+", "update": "~", "replace": "±", "delete": "-"}
HELD_SYMBOLS = {"create": "+", "update": "~", "replace": "±", "delete": "-", "retain": "="}
DESTRUCTIVE_FIRST = ("delete", "replace", "update", "create")  # the order people review in


def _plan_items(plan: PlannedActions, limit: int | None) -> list[tuple[str, str]]:
    """(symbol, text) per planned entry, at most `limit` per action, then an 'and N more' item."""
    items: list[tuple[str, str]] = []
    for action in ("create", "update", "replace", "delete"):
        entries = getattr(plan, action)
        symbol = SYMBOLS[action]
        texts = [("=" if e.retained else symbol, _entry_text(action, e)) for e in entries]
        shown, hidden = _limited(texts, limit)
        items.extend(shown)
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
    planned = [line for line in newest if line.kind == PLAN and line.plan is not None]
    if planned:
        out += _plan_table(planned, commit)
    for line in planned:
        assert line.plan is not None
        out += _plan_details(line, line.plan, limit)
    return "\n".join(out).rstrip() + "\n"


def _plan_table(planned: Sequence[NoteLine], commit: str) -> list[str]:
    """One row per planned stack: how many entries each action has, destructive ones counted apart."""
    out = [
        "| stack | create | update | replace | delete | unchanged | destructive |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for line in planned:
        plan = line.plan
        assert plan is not None
        destructive = len(plan.destructive())
        out.append(
            f"| {_stack_label(line)}{_at(line, commit)} | {len(plan.create)} | {len(plan.update)} | "
            f"{len(plan.replace)} | {len(plan.delete)} | {plan.unchanged} | "
            + (f"**{destructive}** ⚠️" if destructive else "0")
            + " |"
        )
    return [*out, ""]


def _plan_details(line: NoteLine, plan: PlannedActions, limit: int | None) -> list[str]:
    """A stack's entries, destructive ones first and marked, each with its property changes."""
    out = [
        "<details>",
        f"<summary><b>{_stack_label(line)}</b>: {_plan_summary(plan)}</summary>",
        "",
    ]
    for action in DESTRUCTIVE_FIRST:
        entries = getattr(plan, action)
        shown, hidden = _limited(entries, limit)
        for entry in shown:
            destructive = action == "replace" or (action == "delete" and not entry.retained)
            mark = "⚠️ **destructive** " if destructive else ""
            out.append(f"- {mark}`{SYMBOLS[action]}` **{action}** `{_entry_head(action, entry)}`")
            out += [f"  - `{_change_text(change)}`" for change in entry.changes] if limit != 0 else []
        if hidden:
            out.append(f"- ... and {hidden} more to {action}")
    if not plan.changes:
        out.append("- nothing changes")
    return [*out, "", "</details>", ""]


def _entry_head(action: str, entry: PlannedChange) -> str:
    """An entry's one-line head in Markdown (its property changes are listed under it)."""
    return _entry_text(action, dataclasses.replace(entry, changes=()))


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
