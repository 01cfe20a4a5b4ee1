"""The definition of a resource whose yield a load reused from its image: what the image holds (type,
dependencies, deletion policy) is set at once, and the parts read from its body in the template as
written (properties, metadata, update policy, external id) when one is first asked for, so the
bodies of the resources a load reuses are never decoded unless read (`resource_bodies`).

It equals, hashes and prints as the `ResourceDefinition` a full load makes of the same resource.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from reconciler.templates.definition import ResourceDefinition, resource_definition

_FIELDS = tuple(field.name for field in dataclasses.fields(ResourceDefinition))


class _WrittenPart:
    """A field read from the resource's body when first asked for, then held like any other field
    (a non-data descriptor: the instance's own value, once there, is found first)."""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self._name = name

    def __get__(self, definition: Any, owner: type[Any] | None = None) -> Any:
        if definition is None:
            return self
        fields = definition.__dict__
        raw = fields["_bodies"][fields["name"]]
        # setdefault: readers in several threads at once all see the first value put
        fields.setdefault("properties", raw.get("properties") or {})
        fields.setdefault("metadata", raw.get("metadata"))
        fields.setdefault("update_policy", raw.get("update_policy"))
        fields.setdefault("external_id", raw.get("external_id"))
        return fields[self._name]


class ReusedResourceDefinition(ResourceDefinition):
    """A `ResourceDefinition` whose written parts are read from its body when first asked for: made
    with the fields its image entry gives, its name, and `_bodies`, the template's resources section."""

    properties = _WrittenPart()
    metadata = _WrittenPart()
    update_policy = _WrittenPart()
    external_id = _WrittenPart()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceDefinition):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _FIELDS)

    __hash__ = ResourceDefinition.__hash__

    def __repr__(self) -> str:
        return repr(resource_definition(**{name: getattr(self, name) for name in _FIELDS}))
