"""Resource type schemas as data: what each type Heat knows accepts and exposes.

One YAML file per service under `resource_types/`, transcribed from Heat's resource type
reference. Validation, planning and the providers all read them from here, so "what does this
property do" has one answer: its type, whether it is required, its default, its constraints,
whether a change is made in place (`update_allowed`), replaces the resource, or is refused
(`immutable`), and which deprecated names Heat translates to it. Imports nothing of the project.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

PROPERTY_TYPES = frozenset({"string", "integer", "number", "boolean", "list", "map", "any"})
CONSTRAINT_KINDS = frozenset({"allowed_values", "range", "length", "allowed_pattern", "custom_constraint"})
PROPERTY_KEYS = frozenset(
    {"type", "required", "default", "update_allowed", "immutable", "constraints", "translated_to", "hidden"}
)
TYPE_KEYS = frozenset({"properties", "attributes", "placeholder", "open_attributes", "replaced_by_policy"})
# Every resource answers get_attr for `show` (the whole live body), as in Heat.
BASE_ATTRIBUTES = frozenset({"show"})


@dataclass(frozen=True)
class PropertyConstraint:
    """One constraint of a property; `custom_constraint` needs a cloud to answer."""

    kind: str
    argument: Any


@dataclass(frozen=True)
class PropertyFacts:
    """One property of a resource type."""

    name: str
    type: str
    required: bool = False
    default: Any = None
    update_allowed: bool = False
    immutable: bool = False
    constraints: tuple[PropertyConstraint, ...] = ()
    translated_to: str | None = None  # a deprecated name Heat moves to this property


@dataclass(frozen=True)
class PolicyRule:
    """A changed property replaces the resource when `policy` (another property) says so."""

    policy: str
    replace_when: frozenset[str]


@dataclass(frozen=True)
class TypeFacts:
    """A resource type: its properties and attributes; a placeholder accepts any property."""

    name: str
    service: str
    properties: Mapping[str, PropertyFacts] = field(default_factory=dict)
    attributes: frozenset[str] = BASE_ATTRIBUTES
    placeholder: bool = False
    open_attributes: bool = False
    replaced_by_policy: Mapping[str, PolicyRule] = field(default_factory=dict)

    def has_attribute(self, name: str) -> bool:
        """Whether get_attr may name `name` (types with open attributes answer any name)."""
        return self.placeholder or self.open_attributes or name in self.attributes


# Heat's global environment (always loaded under every stack's own) maps these old names.
GLOBAL_ALIASES = MappingProxyType(
    {
        "OS::Quantum::*": "OS::Neutron::*",
        "OS::Metering::Alarm": "OS::Aodh::Alarm",
        "OS::Ceilometer::Alarm": "OS::Aodh::Alarm",
        "OS::Ceilometer::GnocchiResourcesAlarm": "OS::Aodh::GnocchiResourcesAlarm",
        "OS::Ceilometer::GnocchiAggregationByMetricsAlarm": "OS::Aodh::GnocchiAggregationByMetricsAlarm",
        "OS::Ceilometer::GnocchiAggregationByResourcesAlarm": "OS::Aodh::GnocchiAggregationByResourcesAlarm",
    }
)


def type_schema(name: str) -> TypeFacts | None:
    """The schema of type `name`, through Heat's global aliases; None for a type Heat does not know."""
    types = resource_type_schemas()
    if name in types:
        return types[name]
    for alias, target in GLOBAL_ALIASES.items():
        if alias.endswith("*") and name.startswith(alias[:-1]):
            return types.get(target[:-1] + name[len(alias) - 1 :])
        if alias == name:
            return types.get(target)
    return None


class SchemaDataError(ValueError):
    """A schema file is malformed: says which file, type and key."""


@cache
def schemas_fingerprint() -> bytes:
    """A digest of everything `resource_type_schemas` and `type_schema` are made from: the schema
    files and this module (the same in every process, and far cheaper than a digest of the facts)."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for entry in _schema_files():
        digest.update(f"\0{entry.name}\0".encode() + entry.read_bytes())
    return digest.digest()


def _schema_files() -> list[Traversable]:
    folder = resources.files("schemas").joinpath("resource_types")
    return sorted(
        (entry for entry in folder.iterdir() if entry.name.endswith(".yaml")), key=lambda item: item.name
    )


@cache
def resource_type_schemas() -> Mapping[str, TypeFacts]:
    """Every resource type of every service file, by type name."""
    types: dict[str, TypeFacts] = {}
    for entry in _schema_files():
        service = entry.name.removesuffix(".yaml")
        for name, raw in (
            yaml.load(entry.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) or {}
        ).items():
            if name in types:
                raise SchemaDataError(f"{entry.name}: {name} is also declared in {types[name].service}.yaml")
            types[name] = _type_facts(service, name, raw)
    return MappingProxyType(types)


def _type_facts(service: str, name: str, raw: Any) -> TypeFacts:
    where = f"{service}.yaml: {name}"
    if not isinstance(raw, Mapping) or not set(raw) <= TYPE_KEYS:
        raise SchemaDataError(f"{where}: expected a map with keys among {sorted(TYPE_KEYS)}")
    properties = {
        prop: _property_facts(f"{where}: {prop}", prop, body)
        for prop, body in (raw.get("properties") or {}).items()
    }
    policies = {
        prop: PolicyRule(rule["policy"], frozenset(rule["replace_when"]))
        for prop, rule in (raw.get("replaced_by_policy") or {}).items()
    }
    return TypeFacts(
        name=name,
        service=service,
        properties=MappingProxyType(properties),
        attributes=frozenset(raw.get("attributes") or ()) | BASE_ATTRIBUTES,
        placeholder=bool(raw.get("placeholder", False)),
        open_attributes=bool(raw.get("open_attributes", False)),
        replaced_by_policy=MappingProxyType(policies),
    )


def _property_facts(where: str, name: str, raw: Any) -> PropertyFacts:
    if not isinstance(raw, Mapping) or not set(raw) <= PROPERTY_KEYS or raw.get("type") not in PROPERTY_TYPES:
        raise SchemaDataError(f"{where}: expected a map with a type among {sorted(PROPERTY_TYPES)}")
    constraints = []
    for item in raw.get("constraints") or ():
        if not isinstance(item, Mapping) or len(item) != 1 or next(iter(item)) not in CONSTRAINT_KINDS:
            raise SchemaDataError(f"{where}: a constraint is one of {sorted(CONSTRAINT_KINDS)}")
        kind, argument = next(iter(item.items()))
        constraints.append(PropertyConstraint(kind, argument))
    return PropertyFacts(
        name=name,
        type=raw["type"],
        required=bool(raw.get("required", False)),
        default=raw.get("default"),
        update_allowed=bool(raw.get("update_allowed", False)),
        immutable=bool(raw.get("immutable", False)),
        constraints=tuple(constraints),
        translated_to=raw.get("translated_to"),
    )
