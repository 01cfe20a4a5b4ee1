"""Test support: one-resource templates built around a snippet, and clouds with known values."""

from __future__ import annotations

from typing import Any

import yaml

from reconciler.templates import MemorySource, StackDefinition, Unresolved, load_stack


class ReadyCloud:
    """Every resource is ready: ids and attributes are derived from the names."""

    def physical_id(self, resource: str) -> str:
        return f"id-{resource}"

    def attribute(self, resource: str, name: str) -> Any:
        if name == "":
            return {"first": f"{resource}.first", "list": [1, 2]}
        if name == "nested":
            return {"a": {"b": [10, 20]}}
        return f"{resource}.{name}"


class EmptyCloud:
    """Nothing is ready."""

    def physical_id(self, resource: str) -> str:
        raise Unresolved(resource)

    def attribute(self, resource: str, name: str) -> Any:
        raise Unresolved(resource)


def template_with(
    version: str,
    snippet: Any,
    parameters: dict[str, Any] | None = None,
    conditions: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A template whose resource `subject` has the property `value: snippet`, next to `other`."""
    template: dict[str, Any] = {
        "heat_template_version": version,
        "parameters": parameters or {},
        "resources": {
            "other": {"type": "OS::Heat::None"},
            "subject": {"type": "OS::Heat::None", "properties": {"value": snippet}},
        },
    }
    if conditions:
        template["conditions"] = conditions
    return template


def load_template(
    template: dict[str, Any], files: dict[str, str] | None = None, values: dict[str, Any] | None = None
) -> StackDefinition:
    """Load a template given as data, with extra files beside it."""
    source = MemorySource({"t.yaml": yaml.safe_dump(template, sort_keys=False), **(files or {})})
    return load_stack(source, "t.yaml", (), values or {}, stack_name="demo")


def value_of(definition: StackDefinition) -> Any:
    """The resolved `value` property of `subject` against a ready cloud."""
    return definition.resolve_properties("subject", ReadyCloud()).get("value")
