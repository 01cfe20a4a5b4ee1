"""Catalog entries made from the resource type schemas (`schemas/resource_types/`).

A property Heat changes in place (`update_allowed`) is `UpdateRule.UPDATE`, one it refuses to
change (`immutable`) is `IMMUTABLE`, and any other is `REPLACE`. A server's flavor, image and
user_data follow their update-policy properties: a change replaces the server when the desired
policy (or its default) says REPLACE, as Heat's Server does.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from providers.interface import PropertySchema, ResourceType, UpdateRule
from schemas.resource_schemas import PolicyRule, PropertyFacts, resource_type_schemas


@dataclass(frozen=True)
class SchemaResourceType(ResourceType):
    """A catalog entry read from the schemas, with its replacement policies."""

    policies: Mapping[str, PolicyRule] = field(default_factory=dict)

    def replace_reasons_given(self, changed: Collection[str], desired: Mapping[str, Any]) -> frozenset[str]:
        """The replacement reasons once the desired values (and so the update policies) are known."""
        reasons = set(self.replace_reasons(changed))
        for name in changed:
            rule = self.policies.get(name)
            if rule is None:
                continue
            policy = desired.get(rule.policy, self.properties[rule.policy].default)
            if policy in rule.replace_when:
                reasons.add(name)
        return frozenset(reasons)


def rule_of(facts: PropertyFacts) -> UpdateRule:
    """The update rule a property's schema gives it."""
    if facts.immutable:
        return UpdateRule.IMMUTABLE
    return UpdateRule.UPDATE if facts.update_allowed else UpdateRule.REPLACE


def from_schema(name: str, *, asynchronous: bool = False) -> SchemaResourceType:
    """The catalog entry of type `name`, as its schema file describes it."""
    facts = resource_type_schemas()[name]
    properties = {
        prop.name: PropertySchema(prop.name, prop.type, prop.required, prop.default, rule_of(prop))
        for prop in facts.properties.values()
    }
    return SchemaResourceType(
        name=name,
        properties=properties,
        attributes=facts.attributes,
        asynchronous=asynchronous,
        policies=facts.replaced_by_policy,
    )
