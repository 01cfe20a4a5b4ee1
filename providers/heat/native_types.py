"""Catalog entries of the native Heat types, read from their schemas (`schemas/resource_types/heat.yaml`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.declaring import from_schema
from providers.interface import ResourceType

NONE = "OS::Heat::None"
VALUE = "OS::Heat::Value"
RANDOM_STRING = "OS::Heat::RandomString"
TEST_RESOURCE = "OS::Heat::TestResource"
# Heat's record of an AWS group's member properties; the group (OS::Heat::InstanceGroup) reads them.
LAUNCH_CONFIGURATION = "AWS::AutoScaling::LaunchConfiguration"


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


def _from_schema(name: str, kind: type[ResourceType] = ResourceType) -> ResourceType:
    entry = from_schema(name)
    return kind(name=name, properties=entry.properties, attributes=entry.attributes)


NATIVE_TYPES: Mapping[str, ResourceType] = {
    NONE: OpenResourceType(name=NONE, properties={}),
    VALUE: _from_schema(VALUE),
    RANDOM_STRING: _from_schema(RANDOM_STRING),
    TEST_RESOURCE: _from_schema(TEST_RESOURCE, TestResourceType),
    LAUNCH_CONFIGURATION: _from_schema(LAUNCH_CONFIGURATION),
}
