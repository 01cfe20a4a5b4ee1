"""Checking a stack's whole tree of nested templates at load time, without building members.

Every template a template resource, a group's member type, a chain's types or an
OS::Heat::Stack's literal template names is loaded, checked and bound without values (as Heat's
validation does for nested stacks), once per file. Recursion (a template that, through any
number of nested templates, uses itself) and trees deeper than the configured limit are errors
located at the resource whose type leads there. Groups count as one level, their member
templates as the next, as in Heat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.templates.binding import Binding, bind
from reconciler.templates.definition import ResourceDefinition, StackDefinition
from reconciler.templates.documents import Document
from reconciler.templates.environment import TEMPLATE_SUFFIXES
from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.file_source import relative_to
from reconciler.templates.parameters import (
    ParameterSchema,
    ParameterValueError,
    check_constraints,
    typed_value,
)
from reconciler.templates.resource_checks import resource_problems
from reconciler.templates.versions import ALL_FUNCTIONS

Chain = tuple[str, ...]


def check_nested_tree(definition: StackDefinition, chain: Chain, depth: int) -> None:
    """Load and check every nested template under `definition`; `TemplateError` on the first bad one."""
    problems: list[Problem] = []
    for resource in definition.resources.values():
        if resource.nested_kind is None:
            continue
        for template_file, levels, properties in _nested_templates(definition, resource):
            try:
                _check_template(
                    definition,
                    resource,
                    template_file=template_file,
                    chain=chain,
                    depth=depth + levels,
                    properties=properties,
                )
            except TemplateError as error:
                problems.extend(error.problems)
    if problems:
        raise TemplateError(problems)


def _nested_templates(
    definition: StackDefinition, resource: ResourceDefinition
) -> list[tuple[str, int, Any]]:
    raw = resource.properties if isinstance(resource.properties, Mapping) else {}
    if resource.nested_kind == "template" and resource.template_file:
        return [(resource.template_file, 1, raw)]
    if resource.nested_kind in ("group", "autoscaling"):
        member = raw.get("resource_def" if resource.nested_kind == "group" else "resource")
        if isinstance(member, Mapping) and isinstance(member.get("type"), str):
            target = _template_of(definition, "0", member["type"])
            return [(target, 2, member.get("properties"))] if target else []
        return []
    if resource.nested_kind == "chain":
        types = raw.get("resources")
        if isinstance(types, list):
            targets = [
                _template_of(definition, str(index), item)
                for index, item in enumerate(types)
                if isinstance(item, str)
            ]
            return [(target, 2, raw.get("resource_properties")) for target in targets if target]
    return []


def nested_template_files(definition: StackDefinition, resource: ResourceDefinition) -> list[str]:
    """The template files `resource` makes nested stacks of (none for a plain resource)."""
    return [template_file for template_file, _levels, _properties in _nested_templates(definition, resource)]


def _template_of(definition: StackDefinition, member: str, written: str) -> str | None:
    if written.endswith(TEMPLATE_SUFFIXES) and "::" not in written:
        return relative_to(definition.template_path, written)
    mapped = definition.context.environment.registry.resolve(member, written)
    if mapped.problem:
        raise TemplateError([Problem(definition.template_path, 0, 0, f"type {written}: {mapped.problem}")])
    return mapped.target if mapped.is_file else None


def _check_template(
    definition: StackDefinition,
    resource: ResourceDefinition,
    *,
    template_file: str,
    chain: Chain,
    depth: int,
    properties: Any,
) -> None:
    context = definition.context
    document = context.model(definition.template_path).document
    where = ("resources", resource.name, "type")
    if template_file in chain:
        cycle = " -> ".join([*chain[chain.index(template_file) :], template_file])
        raise TemplateError([document.problem(where, f"Recursive template resource: {cycle}")])
    if depth > context.limits.max_nested_stack_depth:
        raise TemplateError(
            [
                document.problem(
                    where,
                    f"Recursion depth exceeds {context.limits.max_nested_stack_depth} "
                    f"(nested templates: {' -> '.join([*chain, template_file])})",
                )
            ]
        )
    context.note_use(definition.template_path, template_file)
    model = context.model(template_file)
    if isinstance(properties, Mapping):
        unknown = sorted(str(name) for name in properties if name not in model.parameters)
        if unknown:
            raise TemplateError(
                [
                    document.problem(
                        ("resources", resource.name, "properties", unknown[0]),
                        f"Resource {resource.name}: Unknown Property {', '.join(unknown)} "
                        f"(not a parameter of {template_file})",
                    )
                ]
            )
    if resource.nested_kind == "template" and isinstance(properties, Mapping):
        _check_literal_values(document, resource, model.parameters, properties)
    if template_file in context.checked:
        return
    nested = bind(model, context, Binding(values={}, top_level=False))
    problems = nested.problems_without_cloud() + resource_problems(nested)
    if problems:
        raise TemplateError(problems)
    check_nested_tree(nested, (*chain, template_file), depth)
    context.checked.add(template_file)


def _check_literal_values(
    document: Document,
    resource: ResourceDefinition,
    schemas: Mapping[str, ParameterSchema],
    properties: Mapping[str, Any],
) -> None:
    """Literal property values of a template resource must fit the nested parameters (as Heat)."""
    problems: list[Problem] = []
    for name, value in properties.items():
        schema = schemas.get(name)
        if schema is None or value is None or _has_call(value):
            continue
        where = ("resources", resource.name, "properties", name)
        try:
            messages = check_constraints(schema, typed_value(schema, value))
        except ParameterValueError as error:
            messages = ["the value is not valid" if schema.hidden else str(error)]
        problems.extend(
            document.problem(where, f"Resource {resource.name}: property {name}: {m}") for m in messages
        )
    if problems:
        raise TemplateError(problems)


def _has_call(value: Any) -> bool:
    if isinstance(value, Mapping):
        if len(value) == 1 and next(iter(value)) in ALL_FUNCTIONS:
            return True
        return any(_has_call(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_call(item) for item in value)
    return False
