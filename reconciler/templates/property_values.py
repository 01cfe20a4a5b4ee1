"""Checking one literal property value against its schema, with Heat's messages.

Only values known without a cloud are checked: a value holding a function call is left to the
resolver (its type is known once it runs), and custom constraints (a flavor, an image, a network
that must exist) are answered "unknown" here, since only a cloud can answer them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reconciler.templates.nodes import Call
from schemas.resource_schemas import PropertyConstraint, PropertyFacts

_BOOLEAN_WORDS = frozenset({"true", "false"})


def holds_call(value: Any) -> bool:
    """Whether `value` (parsed) holds a function call anywhere, so its value is not known yet."""
    kind = type(value)
    if kind is Call:
        return True
    if kind is dict:
        return any(holds_call(item) for item in value.values())
    if kind is list:
        return any(holds_call(item) for item in value)
    return False


def value_problem(facts: PropertyFacts, value: Any) -> str | None:
    """Heat's message for a literal `value` that does not fit `facts`, or None when it fits."""
    if value is None or facts.type == "any":
        return None
    kind = facts.type
    if kind in ("list", "map"):
        expected = list if kind == "list" else Mapping
        if type(value) is not Call and not isinstance(value, expected):
            return f'"{_shown(value)}" is not a {kind}'
        if holds_call(value):
            return None
    elif holds_call(value):
        return None
    typed = _typed(kind, value)
    if isinstance(typed, _Mismatch):
        return typed.message
    return next((message for c in facts.constraints if (message := _broken(c, typed)) is not None), None)


class _Mismatch:
    def __init__(self, message: str) -> None:
        self.message = message


def _typed(kind: str, value: Any) -> Any:  # noqa: PLR0911 - one per type
    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, bool | int | float):
            return str(value)
        return _Mismatch(f"Value must be a string; got {_shown(value)!r}")
    if kind in ("integer", "number"):
        convert = int if kind == "integer" else _number
        if not isinstance(value, bool | Mapping | list):
            try:
                return convert(value)
            except (TypeError, ValueError):
                pass
        return _Mismatch(
            f"Value '{_shown(value)}' is not an {kind}"
            if kind == "integer"
            else f"Value '{_shown(value)}' is not a number"
        )
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in _BOOLEAN_WORDS:
            return value.lower() == "true"
        return _Mismatch(f'"{_shown(value)}" is not a valid boolean')
    return value


def _number(value: Any) -> int | float:
    if isinstance(value, int | float):
        return value
    text = str(value)
    try:
        return int(text)
    except ValueError:
        return float(text)


def _shown(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _broken(constraint: PropertyConstraint, value: Any) -> str | None:  # noqa: PLR0911 - one per kind
    kind, argument = constraint.kind, constraint.argument
    if kind == "allowed_values":
        items = value if isinstance(value, list) else [value]
        allowed = [str(item) for item in argument]
        wrong = next((item for item in items if str(item) not in allowed), None)
        if wrong is not None:
            return f'"{wrong}" is not an allowed value [{", ".join(allowed)}]'
        return None
    if kind == "range":
        low, high = argument.get("min"), argument.get("max")
        if isinstance(value, int | float) and (
            (low is not None and value < low) or (high is not None and value > high)
        ):
            return f"{value} is out of range (min: {low}, max: {high})"
        return None
    if kind == "length":
        low, high = argument.get("min"), argument.get("max")
        size = len(value) if isinstance(value, str | list | Mapping) else None
        if size is not None and ((low is not None and size < low) or (high is not None and size > high)):
            return f"length ({size}) is out of range (min: {low}, max: {high})"
        return None
    if kind == "allowed_pattern":
        if isinstance(value, str) and not re.fullmatch(str(argument), value):
            return f'"{value}" does not match pattern "{argument}"'
        return None
    return None  # custom constraints need a cloud: unknown here
