"""Template parameters: their schema, typing of values and constraints, as HOT defines them.

Types: string, number, json (a map or list; a JSON string is parsed), comma_delimited_list (a
list; a string is split on commas with spaces kept, as Heat does), boolean (true/false, yes/no,
on/off, 1/0, t/f, y/n in any case, as Heat). Constraints: length, range, modulo (2017-02-24 on),
allowed_values, allowed_pattern; custom_constraint is recorded for providers to check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reconciler.templates.versions import TemplateVersion

TYPES = ("string", "number", "json", "comma_delimited_list", "boolean")
TYPE_ALIASES = {"integer": "number", "list": "comma_delimited_list", "map": "json", "float": "number"}
SCHEMA_KEYS = frozenset(
    {"type", "description", "default", "hidden", "label", "constraints", "immutable", "tags"}
)
CONSTRAINT_KEYS = frozenset(
    {"length", "range", "modulo", "allowed_values", "allowed_pattern", "custom_constraint", "description"}
)
TAGS_SINCE = "2018-03-02"  # parameter tags arrived with Heat's 2018-03-02 parameter schema
_TRUE = {"true", "t", "yes", "y", "on", "1"}
_FALSE = {"false", "f", "no", "n", "off", "0"}


class ParameterValueError(ValueError):
    """A value does not fit its parameter's type or constraints; the message names neither secret."""


@dataclass(frozen=True)
class Constraint:
    """One constraint of a parameter; `description` replaces the default message when given."""

    kind: str
    argument: Any
    description: str | None = None


@dataclass(frozen=True)
class ParameterSchema:
    """One entry of a template's `parameters` section."""

    name: str
    type: str
    default: Any = None
    has_default: bool = False
    hidden: bool = False
    immutable: bool = False
    label: str | None = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    constraints: tuple[Constraint, ...] = field(default_factory=tuple)

    @property
    def custom_constraints(self) -> tuple[str, ...]:
        """Named custom constraints (e.g. nova.flavor), checked by providers, not here."""
        return tuple(str(c.argument) for c in self.constraints if c.kind == "custom_constraint")


def parse_schema(name: str, raw: Any, version: TemplateVersion) -> ParameterSchema:
    """The schema of parameter `name`; `ValueError` with a clear message when malformed."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"Parameter {name}: the definition must be a map with a 'type'")
    admitted = SCHEMA_KEYS if version.date >= TAGS_SINCE else SCHEMA_KEYS - {"tags"}
    unknown = sorted(set(raw) - admitted)
    if unknown:
        raise ValueError(f"Parameter {name}: invalid key(s) {', '.join(map(str, unknown))}")
    kind = raw.get("type")
    if kind is None:
        raise ValueError(f"Parameter {name}: missing parameter type")
    kind = TYPE_ALIASES.get(str(kind), kind)
    if kind not in TYPES:
        raise ValueError(
            f"Parameter {name}: invalid type {raw.get('type')!r}; expected one of {', '.join(TYPES)}"
        )
    constraints = tuple(
        _parse_constraint(name, item, kind, version) for item in (raw.get("constraints") or [])
    )
    tags = raw.get("tags") or []
    if not isinstance(tags, list):
        raise ValueError(f"Parameter {name}: tags must be a list")
    schema = ParameterSchema(
        name=name,
        type=kind,
        default=raw.get("default"),
        has_default="default" in raw and raw.get("default") is not None,
        hidden=_flag(name, raw, "hidden"),
        immutable=_flag(name, raw, "immutable"),
        label=raw.get("label"),
        description=raw.get("description"),
        tags=tuple(map(str, tags)),
        constraints=constraints,
    )
    return schema


def _flag(name: str, raw: Mapping[str, Any], key: str) -> bool:
    value = raw.get(key, False)
    try:
        return to_boolean(value)
    except ParameterValueError:
        raise ValueError(f"Parameter {name}: {key} must be a boolean") from None


def _parse_constraint(name: str, raw: Any, kind: str, version: TemplateVersion) -> Constraint:
    if not isinstance(raw, Mapping):
        raise ValueError(f"Parameter {name}: each constraint must be a map")
    keys = [key for key in raw if key != "description"]
    if len(keys) != 1 or keys[0] not in CONSTRAINT_KEYS:
        raise ValueError(f"Parameter {name}: invalid constraint {dict(raw)!r}")
    (constraint,) = keys
    argument = raw[constraint]
    if constraint == "modulo" and version.date < "2017-02-24":
        raise ValueError(
            f"Parameter {name}: the modulo constraint needs heat_template_version 2017-02-24 or later"
        )
    if constraint in ("length", "range", "modulo") and not isinstance(argument, Mapping):
        raise ValueError(f"Parameter {name}: the {constraint} constraint needs a map")
    if constraint == "length" and kind not in ("string", "comma_delimited_list", "json"):
        raise ValueError(f"Parameter {name}: the length constraint does not apply to type {kind}")
    if constraint in ("range", "modulo") and kind != "number":
        raise ValueError(f"Parameter {name}: the {constraint} constraint applies to numbers only")
    if constraint == "allowed_pattern":
        try:
            re.compile(str(argument))
        except re.error as error:
            raise ValueError(f"Parameter {name}: invalid allowed_pattern: {error}") from None
    if constraint == "allowed_values" and not isinstance(argument, list):
        raise ValueError(f"Parameter {name}: allowed_values must be a list")
    return Constraint(constraint, argument, raw.get("description"))


def to_boolean(value: Any) -> bool:
    """Heat's boolean reading: true/false, yes/no, on/off, 1/0, t/f, y/n in any case."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ParameterValueError(f"Unrecognized value {value!r}, acceptable values are: true, false")


def _to_number(value: Any) -> int | float:
    if isinstance(value, bool):
        raise ParameterValueError(f"Value {value!r} is not a number")
    if isinstance(value, int | float):
        return value
    try:
        return int(str(value))
    except ValueError:
        pass
    try:
        return float(str(value))
    except ValueError:
        raise ParameterValueError(f"Value {value!r} is not a number") from None


def typed_value(schema: ParameterSchema, value: Any) -> Any:  # noqa: PLR0911 - one per type
    """`value` as the parameter's type; `ParameterValueError` when it does not fit."""
    kind = schema.type
    if kind == "string":
        if isinstance(value, Mapping | list):
            raise ParameterValueError(f"Value must be a string, not {type(value).__name__}")
        return value if isinstance(value, str) else str(value)
    if kind == "number":
        return _to_number(value)
    if kind == "boolean":
        return to_boolean(value)
    if kind == "comma_delimited_list":
        if isinstance(value, list):
            return [item if isinstance(item, str) else str(item) for item in value]
        if isinstance(value, str):
            return [] if value == "" else value.split(",")
        raise ParameterValueError(f"Value must be a comma-delimited list string, not {type(value).__name__}")
    if isinstance(value, Mapping | list):
        return value
    if isinstance(value, str):
        if not value:
            return {}
        try:
            parsed = json.loads(value)
        except ValueError:
            raise ParameterValueError("Value must be valid JSON") from None
        if isinstance(parsed, Mapping | list):
            return parsed
    raise ParameterValueError("Value must be a JSON map or list")


def check_constraints(schema: ParameterSchema, value: Any) -> list[str]:
    """The messages of every constraint `value` (already typed) breaks; custom ones are skipped."""
    shown = "******" if schema.hidden else repr(value)
    messages = []
    for constraint in schema.constraints:
        message = _broken(constraint, value, shown)
        if message:
            messages.append(constraint.description or message)
    return messages


def _broken(constraint: Constraint, value: Any, shown: str) -> str | None:  # noqa: PLR0911 - one per kind
    kind, argument = constraint.kind, constraint.argument
    if kind == "length":
        size = len(value) if isinstance(value, str | list | Mapping) else len(str(value))
        low, high = argument.get("min"), argument.get("max")
        if (low is not None and size < low) or (high is not None and size > high):
            return f"length must be {_bounds(low, high)}"
        return None
    if kind == "range":
        low, high = argument.get("min"), argument.get("max")
        if (low is not None and value < low) or (high is not None and value > high):
            return f"{shown} must be {_bounds(low, high)}"
        return None
    if kind == "modulo":
        step, offset = argument.get("step"), argument.get("offset", 0)
        if step and (value - offset) % step != 0:
            return f"{shown} is not a multiple of {step} with an offset of {offset}"
        return None
    if kind == "allowed_values":
        candidates = value if isinstance(value, list) else [value]
        allowed = [str(item) for item in argument]
        if any(str(item) not in allowed for item in candidates):
            return f"{shown} is not an allowed value {argument}"
        return None
    if kind == "allowed_pattern":
        if not re.fullmatch(str(argument), str(value)):
            return f"{shown} does not match pattern {argument!r}"
        return None
    return None


def _bounds(low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f"in the range {low} to {high}"
    if low is not None:
        return f"at least {low}"
    return f"no greater than {high}"
