"""Nested stack definitions: template resources, groups, chains and OS::Heat::Stack.

Built on demand from the owning resource's *resolved* properties. A template resource's nested
stack is its template bound to those properties (each property a parameter; its outputs are the
resource's attributes). A group's nested stack has members named "0".."N-1" (skipping names its
removal policies removed), all of the member type with the group's member properties, `index_var`
replaced by the member's index; members are produced only when read, so the definition of a
million-member group is as cheap as one of a single member until someone iterates it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.templates.binding import NESTED_KINDS, Binding, bind
from reconciler.templates.definition import LazyMapping, ResourceDefinition, StackDefinition
from reconciler.templates.environment import TEMPLATE_SUFFIXES
from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.evaluation import Facade
from reconciler.templates.file_source import relative_to
from reconciler.templates.instance_groups import MEMBER_TYPE, member_properties


def nested_definition(
    parent: StackDefinition,
    resource: ResourceDefinition,
    properties: Mapping[str, Any],
    pseudo: Mapping[str, str],
) -> StackDefinition:
    """The nested stack of `resource` (of `parent`), given its resolved properties."""
    kind = resource.nested_kind
    if kind == "template":
        return template_stack(parent, resource, properties, pseudo)
    if kind == "stack":
        return inline_stack(parent, resource, properties, pseudo)
    spec = member_spec(parent, resource, properties)
    return group_stack(parent, resource, spec, properties, pseudo)


def _facade(resource: ResourceDefinition) -> Facade:
    return Facade(
        metadata=resource.metadata,
        deletion_policy=resource.deletion_policy,
        update_policy=resource.update_policy,
    )


def template_stack(
    parent: StackDefinition,
    resource: ResourceDefinition,
    properties: Mapping[str, Any],
    pseudo: Mapping[str, str],
) -> StackDefinition:
    """A template resource's nested stack: its template with the properties as parameters."""
    context = parent.context
    assert resource.template_file is not None
    model = context.model(resource.template_file)
    values = {name: value for name, value in properties.items() if value is not None}
    binding = Binding(
        values=values, top_level=False, facade=_facade(resource), values_are_properties=True, pseudo=pseudo
    )
    return bind(model, context, binding)


def inline_stack(
    parent: StackDefinition,
    resource: ResourceDefinition,
    properties: Mapping[str, Any],
    pseudo: Mapping[str, str],
) -> StackDefinition:
    """OS::Heat::Stack: the template text of its `template` property, with its `parameters`."""
    template = properties.get("template")
    if not isinstance(template, str):
        raise TemplateError(
            [Problem(parent.template_path, 0, 0, f"Resource {resource.name}: template must be a string")]
        )
    model = parent.context.model_from_text(f"{parent.template_path}#{resource.name}", template)
    values = properties.get("parameters") or {}
    return bind(model, parent.context, Binding(values=dict(values), top_level=False, pseudo=pseudo))


class MemberSpec:
    """How a group's members look: their count and names, type and properties."""

    def __init__(
        self,
        names: range | tuple[str, ...],
        member_type: str,
        properties: Any,
        *,
        metadata: Any = None,
        index_var: str | None = None,
        chained: bool = False,
        types: tuple[str, ...] = (),
    ) -> None:
        self.names = names
        self.member_type = member_type
        self.properties = properties
        self.metadata = metadata
        self.index_var = index_var
        self.chained = chained
        self.types = types


def _count(parent: StackDefinition, value: Any, name: str, resource: ResourceDefinition) -> int:
    document = parent.context.model(parent.template_path).document
    where = ("resources", resource.name, "properties", name)
    try:
        count = int(value)
    except (TypeError, ValueError):
        message = f"Resource {resource.name}: {name} must be an integer, not {value!r}"
        raise TemplateError([document.problem(where, message)]) from None
    if count < 0:
        raise TemplateError(
            [document.problem(where, f"Resource {resource.name}: {name} must not be negative")]
        )
    return count


def _names(count: int, removed: set[str]) -> range | tuple[str, ...]:
    if not removed:
        return range(count)
    names: list[str] = []
    index = 0
    while len(names) < count:
        if str(index) not in removed:
            names.append(str(index))
        index += 1
    return tuple(names)


def removed_members(properties: Mapping[str, Any]) -> list[str]:
    """Member names a ResourceGroup's removal_policies removed."""
    removed: list[str] = []
    for policy in properties.get("removal_policies") or []:
        if isinstance(policy, Mapping):
            removed.extend(str(item) for item in policy.get("resource_list") or [])
    return removed


def member_spec(
    parent: StackDefinition, resource: ResourceDefinition, properties: Mapping[str, Any]
) -> MemberSpec:
    """The members of a group, AutoScalingGroup, InstanceGroup or ResourceChain, from its resolved
    properties."""
    kind = resource.nested_kind
    if kind == "group":
        definition = properties.get("resource_def") or {}
        count = _count(parent, properties.get("count", 1), "count", resource)
        names = _names(count, set(removed_members(properties)))
        return MemberSpec(
            names,
            str(definition.get("type", "")),
            definition.get("properties") or {},
            metadata=definition.get("metadata"),
            index_var=str(properties.get("index_var", "%index%")),
        )
    if kind == "autoscaling":
        definition = properties.get("resource") or {}
        desired = properties.get("desired_capacity")
        size = desired if desired is not None else properties.get("min_size", 0)
        count = _count(parent, size, "desired_capacity", resource)
        return MemberSpec(range(count), str(definition.get("type", "")), definition.get("properties") or {})
    if kind == "instancegroup":
        count = _count(parent, properties.get("Size", 0), "Size", resource)
        return MemberSpec(range(count), MEMBER_TYPE, member_properties(properties))
    types = tuple(str(item) for item in properties.get("resources") or [])
    return MemberSpec(
        range(len(types)),
        "",
        properties.get("resource_properties") or {},
        chained=not properties.get("concurrent", False),
        types=types,
    )


def _with_index(value: Any, index_var: str, index: str) -> Any:
    if isinstance(value, str):
        return value.replace(index_var, index)
    if isinstance(value, Mapping):
        return {key: _with_index(item, index_var, index) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_index(item, index_var, index) for item in value]
    return value


def member_definition(parent: StackDefinition, spec: MemberSpec, name: str) -> ResourceDefinition:
    """Member `name` of a group, built when asked for."""
    written = spec.types[int(name)] if spec.types else spec.member_type
    kind: str | None
    template_file: str | None
    properties = _with_index(spec.properties, spec.index_var, name) if spec.index_var else spec.properties
    if written.endswith(TEMPLATE_SUFFIXES) and "::" not in written:
        effective, kind, template_file = written, "template", relative_to(parent.template_path, written)
    else:
        mapped = parent.context.environment.registry.resolve(name, written)
        if mapped.problem:
            raise TemplateError([Problem(parent.template_path, 0, 0, f"type {written}: {mapped.problem}")])
        if mapped.is_file:
            effective, kind, template_file = written, "template", mapped.target
        else:
            effective, kind, template_file = mapped.target, NESTED_KINDS.get(mapped.target), None
    depends_on = frozenset({str(int(name) - 1)}) if spec.chained and name != "0" else frozenset()
    return ResourceDefinition(
        name=name,
        type=effective,
        properties=properties,
        depends_on=depends_on,
        metadata=spec.metadata,
        nested_kind=kind,
        template_file=template_file,
        written_type=written,
    )


def group_stack(
    parent: StackDefinition,
    resource: ResourceDefinition,
    spec: MemberSpec,
    properties: Mapping[str, Any],
    pseudo: Mapping[str, str],
) -> StackDefinition:
    """The nested stack of a group: lazily produced members, no parameters, no outputs."""
    resources = LazyMapping(spec.names, lambda name: member_definition(parent, spec, name))

    def resize(count: int) -> StackDefinition:
        removed = set(removed_members(properties)) if resource.nested_kind == "group" else set()
        resized = MemberSpec(
            _names(count, removed),
            spec.member_type,
            spec.properties,
            metadata=spec.metadata,
            index_var=spec.index_var,
            chained=spec.chained,
            types=spec.types,
        )
        return group_stack(parent, resource, resized, properties, pseudo)

    parsed = LazyMapping(spec.names, lambda name: resources[name].properties)
    graph = LazyMapping(spec.names, lambda name: resources[name].depends_on)
    return StackDefinition(
        template_path=parent.template_path,
        parameters={},
        hidden_parameters=frozenset(),
        resources=resources,
        outputs={},
        warnings=(),
        input_files=parent.input_files,
        graph=graph,
        evaluation=parent.evaluation,
        parsed_properties=parsed,
        parsed_outputs={},
        context=parent.context,
        pseudo_parameters=pseudo,
        identity={
            "group": resource.name,
            "of": parent.template_path,
            "kind": resource.nested_kind,
            "properties": dict(properties),
            # member templates and the files they read: a change there is a change of the group
            "files": parent.context.file_digests(parent.input_files - {parent.template_path}),
        },
        resize=resize,
    )
