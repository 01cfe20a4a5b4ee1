"""The property changes a plan shows per resource: old -> new, secrets masked.

A value is masked when the property reads a hidden parameter (so an old secret is masked too, even
once rotated) or when its text holds the value of one. A value known only after apply (it comes
from a resource being created, replaced or updated) is shown as such.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reconciler.plan import ResourcePlan
from reconciler.plan.unknown_values import shown_unknowns
from reconciler.source.note_lines import ABSENT, MASKED, PropertyChange
from reconciler.templates import StackDefinition
from reconciler.templates.nodes import Call


def property_changes(
    item: ResourcePlan, definition: StackDefinition, *, top_level: bool = True
) -> tuple[PropertyChange, ...]:
    """`item`'s changed properties, old and new; `top_level`: a resource of `definition` itself,
    whose properties reading a hidden parameter are masked whatever their value."""
    if not item.changed:
        return ()
    old = item.applied or {}
    new = item.properties or {}
    secret = _reading_hidden(definition, item.name) if top_level else set()
    return tuple(
        PropertyChange(
            name,
            _shown(old.get(name, ABSENT), name in secret, definition),
            _shown(new.get(name, ABSENT), name in secret, definition),
        )
        for name in sorted(item.changed)
    )


def _shown(value: Any, secret: bool, definition: StackDefinition) -> Any:
    if value is ABSENT:
        return ABSENT
    if secret:
        return MASKED
    text = repr(value)
    if definition.without_secrets(text) != text:
        return MASKED
    return shown_unknowns(value)


def _reading_hidden(definition: StackDefinition, resource: str) -> set[str]:
    """The top-level properties of `resource` whose value reads a hidden parameter."""
    hidden = definition.hidden_parameters
    if not hidden or resource not in definition.resources:
        return set()
    parsed = definition.parsed_properties(resource)
    if type(parsed) is not dict:
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
