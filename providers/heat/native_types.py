"""Catalog entries of the native Heat types, as Heat's resource type reference documents them."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import PropertySchema, ResourceType, UpdateRule

NONE = "OS::Heat::None"
VALUE = "OS::Heat::Value"
RANDOM_STRING = "OS::Heat::RandomString"
TEST_RESOURCE = "OS::Heat::TestResource"


@dataclass(frozen=True)
class OpenResourceType(ResourceType):
    """A type that accepts any property and changes every one in place (OS::Heat::None)."""

    def replace_reasons(self, changed: Collection[str]) -> frozenset[str]:
        return frozenset()


@dataclass(frozen=True)
class TestResourceType(ResourceType):
    """OS::Heat::TestResource: `update_replace: true` turns any change into a replacement."""

    __test__ = False  # not a pytest test class, whatever its name says

    def replace_reasons_given(self, changed: Collection[str], desired: Mapping[str, Any]) -> frozenset[str]:
        """The replacement reasons once the desired property values are known."""
        if changed and desired.get("update_replace") is True:
            return frozenset(changed) | {"update_replace"}
        return self.replace_reasons(changed)


def _schema(*properties: PropertySchema) -> Mapping[str, PropertySchema]:
    return {schema.name: schema for schema in properties}


_UPDATE = UpdateRule.UPDATE
_REPLACE = UpdateRule.REPLACE

NATIVE_TYPES: Mapping[str, ResourceType] = {
    NONE: OpenResourceType(name=NONE, properties={}),
    VALUE: ResourceType(
        name=VALUE,
        properties=_schema(
            PropertySchema("value", "any", required=True, update=_UPDATE),
            PropertySchema("type", "string", update=_UPDATE),
        ),
        attributes=frozenset({"value"}),
    ),
    RANDOM_STRING: ResourceType(
        name=RANDOM_STRING,
        properties=_schema(
            PropertySchema("length", "integer", default=32),
            PropertySchema("sequence", "string"),
            PropertySchema("character_classes", "list"),
            PropertySchema("character_sequences", "list"),
            PropertySchema("salt", "string"),
        ),
        attributes=frozenset({"value"}),
    ),
    TEST_RESOURCE: TestResourceType(
        name=TEST_RESOURCE,
        properties=_schema(
            PropertySchema("value", "string", default="test_string", update=_UPDATE),
            PropertySchema("update_replace", "boolean", default=False, update=_UPDATE),
            PropertySchema("fail", "boolean", default=False, update=_UPDATE),
            PropertySchema("wait_secs", "number", default=0, update=_UPDATE),
            PropertySchema("action_wait_secs", "map", update=_UPDATE),
            PropertySchema("attr_wait_secs", "number", default=0, update=_UPDATE),
            PropertySchema("client_name", "string", update=_UPDATE),
            PropertySchema("entity_name", "string", update=_UPDATE),
            PropertySchema("constraint_prop_secs", "number", default=0, update=_UPDATE),
        ),
        attributes=frozenset({"output"}),
    ),
}
