"""The property changes a plan shows per resource: old -> new, secrets masked.

A value is masked when the property reads a hidden parameter (so an old secret is masked too, even
once rotated) or when its text holds the value of one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from reconciler.plan import Action, RecordedResource, StackPlan
from reconciler.source.note_lines import ABSENT, MASKED, PropertyChange, ResourceDiff
from reconciler.templates import StackDefinition
from reconciler.templates.nodes import Call


def plan_diffs(
    plan: StackPlan, recorded: Mapping[str, RecordedResource], definition: StackDefinition
) -> tuple[ResourceDiff, ...]:
    """Every updated or replaced resource's changed properties, in the plan's order."""
    diffs = []
    for item in plan.resources:
        if item.action not in (Action.UPDATE, Action.REPLACE) or not item.changed:
            continue
        record = recorded.get(item.name)
        old = record.properties if record is not None else {}
        new = item.properties or {}
        secret = _reading_hidden(definition, item.name)
        changes = tuple(
            PropertyChange(
                name,
                _shown(old.get(name, ABSENT), name in secret, definition),
                _shown(new.get(name, ABSENT), name in secret, definition),
            )
            for name in sorted(item.changed)
        )
        diffs.append(ResourceDiff(item.name, changes))
    return tuple(diffs)


def _shown(value: Any, secret: bool, definition: StackDefinition) -> Any:
    if value is ABSENT:
        return ABSENT
    if secret:
        return MASKED
    text = repr(value)
    return MASKED if definition.without_secrets(text) != text else value


def _reading_hidden(definition: StackDefinition, resource: str) -> set[str]:
    """The top-level properties of `resource` whose value reads a hidden parameter."""
    hidden = definition.hidden_parameters
    parsed = definition.parsed_properties(resource)
    if not hidden or type(parsed) is not dict:
        return set()
    return {name for name, value in parsed.items() if any(p in hidden for p in _parameters(value))}


def _parameters(node: Any) -> Iterator[str]:
    kind = type(node)
    if kind is Call:
        args = node.args
        if node.name == "get_param":
            name = args[0] if isinstance(args, list) and args else args
            if isinstance(name, str):
                yield name
        yield from _parameters(args)
    elif kind is dict:
        for value in node.values():
            yield from _parameters(value)
    elif kind is list:
        for value in node:
            yield from _parameters(value)
