"""Checking a stack's resources against the resource type schemas, as Heat's validation does.

For every resource whose condition holds: its type must be one Heat knows (or an environment must
map it to a template or to a known type): "The Resource Type (X) could not be found."; every
property must be one of the type's (deprecated names are translated as Heat translates them),
every required one present, every literal value of the right type and inside its constraints;
every `get_attr` must name an attribute the type has. A type Heat knows is valid here whether or
not a provider serves it on some cloud: that is for `plan` and `apply` to say.

A value computed by functions is checked too once it is known without a cloud (from parameters
given or defaulted, as Heat checks it when the stack is created); one that reads a resource
(`get_resource`, `get_attr`) is known only at apply, and Heat leaves it unchecked until then too.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any

from reconciler.templates.check_verdicts import CheckVerdicts
from reconciler.templates.computed_values import computed_value_problems, has_computed_values
from reconciler.templates.definition import ResourceDefinition, StackDefinition
from reconciler.templates.documents import Document, PathKey
from reconciler.templates.environment import TEMPLATE_SUFFIXES
from reconciler.templates.errors import Problem
from reconciler.templates.instance_groups import LAUNCH_CONFIGURATION, without_launch_configuration
from reconciler.templates.nodes import Call
from reconciler.templates.property_values import value_problem
from reconciler.templates.template_model import TemplateModel
from schemas.resource_schemas import TypeFacts, type_schema

Where = tuple[PathKey, ...]
MEMBER_KEYS = {"group": "resource_def", "autoscaling": "resource"}

# Resources checked below this read no slot of verdicts (a load reusing all but a few of them).
VERDICTS_WORTH_READING = 64


def resource_problems(definition: StackDefinition, reused: Collection[str] = ()) -> list[Problem]:
    """Every problem of the resources of `definition` against their types' schemas; those named in
    `reused` are not checked (an earlier load of the same inputs found them clean)."""
    model = definition.context.model(definition.template_path)
    document = model.document
    checked = _checked(definition, model, reused)
    verdicts = CheckVerdicts(
        # a few resources are checked sooner than their slot of verdicts is read
        definition.context.blocks if len(checked) >= VERDICTS_WORTH_READING else None,
        definition.template_path,
        definition.context.limits,
        document.data.get("heat_template_version") if type(document.data) is dict else None,
    )
    problems: list[Problem] = []
    for resource in checked:
        if resource.nested_kind == "template":
            continue  # a template resource's properties are its template's parameters (nested_checks)
        at = ("resources", resource.name)
        facts = type_schema(resource.type)
        if facts is None:
            problems.append(document.problem((*at, "type"), _not_found(resource.type)))
            continue
        if resource.external_id is not None:
            continue  # Heat checks an external resource against the cloud, not its properties
        parsed = definition.parsed_properties(resource.name)
        if resource.nested_kind == "instancegroup":
            problems.extend(_launch_configuration_problems(document, at, parsed))
            parsed = without_launch_configuration(parsed)
        if resource.nested_kind is None and not facts.placeholder:
            problems.extend(_own_problems(definition, model, verdicts, resource, facts))
            continue
        if not facts.placeholder:
            problems.extend(_property_problems(document, at, facts, parsed))
            problems.extend(computed_value_problems(definition, document, resource.name, facts))
        if resource.nested_kind in MEMBER_KEYS and type(parsed) is dict:
            problems.extend(_member_problems(definition, document, resource, parsed))
    verdicts.keep()
    problems.extend(_attribute_problems(definition, document, checked))
    return problems


def _own_problems(
    definition: StackDefinition,
    model: TemplateModel,
    verdicts: CheckVerdicts,
    resource: ResourceDefinition,
    facts: TypeFacts,
) -> list[Problem]:
    """A plain resource's properties against its type: skipped where a clean verdict of the same
    inputs is kept (`check_verdicts` says which resources may have one)."""
    key = None
    written = model.resources.get(resource.name)
    if written is not None and not written.references.has_if:
        key = verdicts.key(model.document.resource_digests.get(resource.name), resource.type, facts)
    if key is not None and verdicts.clean(key):
        return []
    document = model.document
    parsed = definition.parsed_properties(resource.name)
    at = ("resources", resource.name)
    problems = list(_property_problems(document, at, facts, parsed))
    problems.extend(computed_value_problems(definition, document, resource.name, facts))
    if key is not None and not problems and not has_computed_values(parsed):
        verdicts.found_clean(key)
    return problems


def _launch_configuration_problems(document: Document, at: Where, parsed: Any) -> Iterator[Problem]:
    """An InstanceGroup must name a launch configuration of its stack, as Heat finds it."""
    if isinstance(parsed, Mapping) and LAUNCH_CONFIGURATION not in parsed:
        message = (
            "LaunchConfigurationName must name an AWS::AutoScaling::LaunchConfiguration of this "
            "stack (with get_resource or Ref)"
        )
        yield document.problem((*at, "properties", "LaunchConfigurationName"), message)


def _not_found(type_name: str) -> str:
    return f"The Resource Type ({type_name}) could not be found."


def _member_problems(
    definition: StackDefinition, document: Document, resource: ResourceDefinition, parsed: dict[str, Any]
) -> Iterator[Problem]:
    """A group's member definition: its type must exist and its properties fit it, as Heat checks."""
    key = MEMBER_KEYS[resource.nested_kind or ""]
    member = parsed.get(key)
    if type(member) is not dict or not isinstance(member.get("type"), str):
        return
    written = member["type"]
    if written.endswith(TEMPLATE_SUFFIXES) and "::" not in written:
        return
    mapped = definition.context.environment.registry.resolve("0", written)
    if mapped.problem or mapped.is_file:
        return  # a mapping's own problem is reported where nested templates are checked
    at = ("resources", resource.name, "properties", key)
    facts = type_schema(mapped.target)
    if facts is None:
        yield document.problem((*at, "type"), _not_found(mapped.target))
    elif not facts.placeholder:
        yield from _property_problems(document, at, facts, member.get("properties") or {})


def _property_problems(document: Document, at: Where, facts: TypeFacts, parsed: Any) -> Iterator[Problem]:
    if type(parsed) is not dict:
        return  # the whole properties map comes from a function: known once resolved
    prefix = "Property error: " + ".".join(str(step) for step in at) + ".properties"
    given: set[str] = set()
    for name, value in parsed.items():
        schema = facts.properties.get(name)
        if schema is None:
            yield document.problem((*at, "properties", name), f"{prefix}: Unknown Property {name}")
            continue
        target = schema.translated_to or name
        if target in given:
            both = ", ".join(sorted({target, name}))
            message = f"{prefix}: Cannot define the following properties at the same time: {both}"
            yield document.problem((*at, "properties", name), message)
        given.add(target)
        problem = value_problem(facts.properties.get(target, schema), value)
        if problem is not None:
            yield document.problem((*at, "properties", name), f"{prefix}.{name}: {problem}")
    for name, schema in facts.properties.items():
        if schema.required and name not in given:
            yield document.problem(
                (*at, "properties") if parsed else at, f"{prefix}: Property {name} not assigned"
            )


def _checked(
    definition: StackDefinition, model: TemplateModel, reused: Collection[str]
) -> Collection[ResourceDefinition]:
    """The resources of `definition` to check: all, or those `model` made when some are reused."""
    if not reused:
        return definition.resources.values()
    return [definition.resources[name] for name in model.resources if name in definition.resources]


def _attribute_problems(
    definition: StackDefinition, document: Document, checked: Collection[ResourceDefinition]
) -> Iterator[Problem]:
    snippets = [definition.parsed_properties(resource.name) for resource in checked]
    snippets += [
        definition.parsed_output(name) for name, output in definition.outputs.items() if output.active
    ]
    for snippet in snippets:
        for call in _get_attr_calls(snippet):
            args = call.args
            if not (
                isinstance(args, list)
                and len(args) >= 2
                and isinstance(args[0], str)
                and isinstance(args[1], str)
            ):
                continue
            target = definition.resources.get(args[0])
            if target is None or target.nested_kind == "template":
                continue
            facts = type_schema(target.type)
            if facts is not None and not facts.has_attribute(args[1]):
                yield document.problem(
                    call.where, f"The Referenced Attribute ({args[0]} {args[1]}) is incorrect."
                )


def _get_attr_calls(node: Any) -> list[Call]:
    """Every get_attr call in `node` (a loop, not recursion: this runs over every resource)."""
    found: list[Call] = []
    pending = [node]
    while pending:
        current = pending.pop()
        kind = type(current)
        if kind is Call:
            if current.name == "get_attr":
                found.append(current)
            pending.append(current.args)
        elif kind is dict:
            pending.extend(current.values())
        elif kind is list:
            pending.extend(current)
    return found
