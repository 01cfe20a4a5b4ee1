"""How one Neutron resource type's Heat properties become its API body: a table per type.

A `NeutronTable` names the collection (`/networks`), the body's key (`network`), and for
every Heat property the body key it is sent as and how its value is converted (names resolved to
ids, nested maps rewritten). `value_specs` is merged into the body as Heat does. The tables
themselves are in `neutron_tables.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from providers.interface import LiveStatus
from providers.openstack.name_lookup import NameLookup

Convert = Callable[[Any, NameLookup], Any]


def as_is(value: Any, names: NameLookup) -> Any:
    return value


def resolved(kind: str) -> Convert:
    """A name-or-id property sent as the id."""

    def convert(value: Any, names: NameLookup) -> Any:
        return names.id_of(kind, value) if value else value

    return convert


def each_resolved(kind: str) -> Convert:
    def convert(value: Any, names: NameLookup) -> Any:
        return [names.id_of(kind, item) for item in value or []]

    return convert


@dataclass(frozen=True)
class BodyField:
    body_key: str
    convert: Convert = as_is


@dataclass(frozen=True)
class NeutronTable:
    type_name: str
    collection: str  # "networks": the list key and the path segment
    singular: str  # "network": the body key
    fields: Mapping[str, BodyField]
    path_segment: str = ""  # when the URL differs from the list key (security-groups)
    tagged: bool = True
    # Where an untagged type keeps the marker instead (when the template leaves that field empty).
    marker_field: str | None = None
    attributes: frozenset[str] = field(default_factory=frozenset)

    @property
    def path(self) -> str:
        return f"/{self.path_segment or self.collection}"

    def body(
        self, properties: Mapping[str, Any], names: NameLookup, only: frozenset[str] | None = None
    ) -> dict[str, Any]:
        """The API body for these properties (`only`: just the changed ones, for an update)."""
        body: dict[str, Any] = {}
        for name, value in properties.items():
            if only is not None and name not in only:
                continue
            target = self.fields.get(name)
            if target is None or (value is None and only is None):
                continue
            body[target.body_key] = None if value is None else target.convert(value, names)
        if (only is None or "value_specs" in only) and properties.get("value_specs"):
            body.update(properties["value_specs"])
        return body

    def observed_properties(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """The live body read back under Heat's property names (ids where Heat takes names)."""
        return {
            name: item.get(target.body_key) for name, target in self.fields.items() if target.body_key in item
        }


def neutron_status(item: Mapping[str, Any]) -> tuple[LiveStatus, str]:
    status = str(item.get("status") or "")
    if status == "ERROR":
        return LiveStatus.FAILED, "ERROR"
    if status in ("BUILD", "PENDING_CREATE", "PENDING_UPDATE"):
        return LiveStatus.IN_PROGRESS, status
    return LiveStatus.READY, "" if status in ("", "ACTIVE") else status
