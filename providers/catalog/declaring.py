"""Short constructors for catalog entries, so each type reads like Heat's reference table.

`updatable(...)` is a property changed in place, `replacing(...)` one whose change replaces the
resource, `immutable(...)` one that may never change; `resource_type` gathers them by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from providers.interface import PropertySchema, ResourceType, UpdateRule


def updatable(
    name: str, type_: str, *, required: bool = False, default: Any = None, description: str = ""
) -> PropertySchema:
    """A property Heat changes in place (its reference says "Can be updated without replacement")."""
    return PropertySchema(name, type_, required, default, UpdateRule.UPDATE, description)


def replacing(
    name: str, type_: str, *, required: bool = False, default: Any = None, description: str = ""
) -> PropertySchema:
    """A property whose change replaces the resource ("Updates cause replacement")."""
    return PropertySchema(name, type_, required, default, UpdateRule.REPLACE, description)


def immutable(
    name: str, type_: str, *, required: bool = False, default: Any = None, description: str = ""
) -> PropertySchema:
    """A property that may never change once the resource exists (Heat's `immutable=True`)."""
    return PropertySchema(name, type_, required, default, UpdateRule.IMMUTABLE, description)


def resource_type(
    name: str,
    properties: Iterable[PropertySchema],
    attributes: Iterable[str],
    *,
    asynchronous: bool = False,
) -> ResourceType:
    """A catalog entry; every type also exposes Heat's `show` attribute (the whole live body)."""
    by_name = {schema.name: schema for schema in properties}
    return ResourceType(
        name=name,
        properties=by_name,
        attributes=frozenset(attributes) | {"show"},
        asynchronous=asynchronous,
    )
