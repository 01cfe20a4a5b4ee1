"""Binding a checked template model to parameter values: the `StackDefinition` of one stack.

Order of parameter sources, highest first: values given by the caller (for a nested stack, its
owning resource's properties), the environment's `parameters` (top-level stack only), its
`parameter_defaults` (every stack of the tree, as in Heat), the template's default. Conditions are
then evaluated, resources whose condition is false are left out (references to them resolve to
null and add no dependency), effective types come from the registry, and the dependency graph is
checked for cycles.
"""

from __future__ import annotations

import dataclasses
import graphlib
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reconciler.templates.definition import (
    OutputDefinition,
    ResourceDefinition,
    StackDefinition,
    resource_definition,
)
from reconciler.templates.environment import TEMPLATE_SUFFIXES, merged_value
from reconciler.templates.errors import FunctionError, Problem, TemplateError
from reconciler.templates.evaluation import UNKNOWN, Evaluation, Facade, NoCloud
from reconciler.templates.file_source import relative_to
from reconciler.templates.functions_conditions import condition_value
from reconciler.templates.image_pickles import ParsedProperties
from reconciler.templates.instance_groups import with_launch_configurations
from reconciler.templates.nodes import Call
from reconciler.templates.parameters import (
    ParameterSchema,
    ParameterValueError,
    check_constraints,
    typed_value,
)
from reconciler.templates.reused_definitions import ReusedResourceDefinition
from reconciler.templates.reused_resources import ReusedResources
from reconciler.templates.template_model import PSEUDO_PARAMETERS, ResourceModel, TemplateModel

if TYPE_CHECKING:
    from reconciler.templates.loading import LoadContext

NESTED_KINDS = {
    "OS::Heat::ResourceGroup": "group",
    "OS::Heat::AutoScalingGroup": "autoscaling",
    "OS::Heat::InstanceGroup": "instancegroup",
    "OS::Heat::ResourceChain": "chain",
    "OS::Heat::Stack": "stack",
}


@dataclass(frozen=True)
class Binding:
    """What a model is bound with, besides the model."""

    values: Mapping[str, Any]
    top_level: bool = True
    facade: Facade = field(default_factory=Facade)
    values_are_properties: bool = False  # unknown names are "Unknown Property" errors
    # OS::stack_name, OS::stack_id, OS::project_id as the caller knows them; absent ones are unknown
    # (validation goes on; resolving a value that needs one raises Unresolved).
    pseudo: Mapping[str, str] = field(default_factory=dict)


def bind(
    model: TemplateModel, context: LoadContext, binding: Binding, reused: ReusedResources | None = None
) -> StackDefinition:
    """The stack definition of `model` under `binding`; `TemplateError` with every problem found.

    `reused` gives the yield of the resources `model` did not parse (those of `model.reused`)."""
    problems: list[Problem] = []
    parameters, hidden, missing = _parameters(model, context, binding, problems)
    if problems:
        raise TemplateError(problems)
    scope = Evaluation(
        version=model.version,
        parameters=parameters,
        resources=frozenset(),
        all_resources=frozenset(model.resources if reused is None else reused.order),
        source=NoCloud(),
        files=context.files_of(model.path),
        facade=binding.facade,
        limits=context.limits,
        validating=True,
    )
    # Heat needs these values to validate: a parameter without one is an error where it is read.
    needed = _NeededValues(model, frozenset(missing) if binding.top_level else frozenset(), problems)
    scope.conditions = _Conditions(model, scope, problems, needed)
    active = {
        name
        for name, resource in model.resources.items()
        if needed.check(resource.condition, (*resource.where, "condition"))
        and _holds(resource.condition, scope, problems, model, resource.where)
    }
    if reused is not None:
        active.update(reused.entries)  # a reused resource has no condition
    scope.resources = frozenset(active)
    resources: dict[str, ResourceDefinition] = {}
    parsed_properties: MutableMapping[str, Any] = {} if reused is None else ParsedProperties()
    if reused is None:
        for name, resource in model.resources.items():
            if name in active:
                needed.check(resource.deletion_policy, (*resource.where, "deletion_policy"))
                resources[name], parsed_properties[name] = _resource(
                    model, resource, scope, context, problems
                )
    else:
        _bind_reusing(model, reused, (scope, context, needed, problems), resources, parsed_properties)
    # a reused resource is never a group: only those made here are looked at
    made = (
        resources
        if reused is None
        else {name: resources[name] for name in model.resources if name in resources}
    )
    if any(resource.nested_kind == "instancegroup" for resource in made.values()):
        with_launch_configurations(resources, parsed_properties)
    scope.group_resources = frozenset(
        name
        for name, resource in made.items()
        if resource.nested_kind in ("group", "autoscaling", "chain", "instancegroup")
    )
    graph = {name: resource.depends_on for name, resource in resources.items()}
    _check_cycles(model, graph, problems)
    outputs = {
        name: OutputDefinition(
            name=name,
            value=output.raw,
            description=output.description,
            active=needed.check(output.condition, (*output.where, "condition"))
            and _holds(output.condition, scope, problems, model, output.where),
        )
        for name, output in model.outputs.items()
    }
    if problems:
        raise TemplateError(problems)
    return StackDefinition(
        template_path=model.path,
        parameters={name: value for name, value in parameters.items() if name not in PSEUDO_PARAMETERS},
        hidden_parameters=frozenset(hidden),
        missing_parameters=frozenset(missing),
        parameter_schemas=model.parameters,
        resources=resources,
        outputs=outputs,
        warnings=tuple(model.warnings),
        input_files=None,  # computed on first use, once the whole tree is loaded
        graph=graph,
        evaluation=_frozen_scope(scope),
        parsed_properties=parsed_properties,
        parsed_outputs={name: output.value for name, output in model.outputs.items()},
        context=context,
        pseudo_parameters=binding.pseudo,
        needs_evaluation=frozenset(
            name
            for name, resource in model.resources.items()
            if name in resources and resource.references.needs_evaluation
        ),
    )


def _bind_reusing(
    model: TemplateModel,
    reused: ReusedResources,
    how: tuple[Evaluation, LoadContext, _NeededValues, list[Problem]],
    resources: dict[str, ResourceDefinition],
    parsed_properties: MutableMapping[str, Any],
) -> None:
    """Every resource in the template's order: reused ones as they were, the others bound."""
    assert isinstance(parsed_properties, ParsedProperties)
    pickled = parsed_properties.pickled_store()
    scope, context, needed, problems = how
    bodies = model.document.data["resources"]
    entries = reused.entries
    new = object.__new__
    for name in reused.order:
        entry = entries.get(name)
        if entry is not None:
            # made without a call per resource: this loop runs once per resource of a large template
            resources[name] = definition = new(ReusedResourceDefinition)
            object.__setattr__(
                definition,
                "__dict__",
                {
                    "name": name,
                    "type": entry.type,
                    "depends_on": entry.depends_on,
                    "deletion_policy": entry.deletion_policy,
                    "nested_kind": None,
                    "template_file": None,
                    "written_type": entry.written_type,
                    "_bodies": bodies,  # its written parts read from its body when first asked for
                },
            )
            pickled[name] = entry.parsed
        elif name in scope.resources:
            resource = model.resources[name]
            needed.check(resource.deletion_policy, (*resource.where, "deletion_policy"))
            resources[name], parsed_properties[name] = _resource(model, resource, scope, context, problems)


def _frozen_scope(scope: Evaluation) -> Evaluation:
    return dataclasses.replace(scope, conditions=dict(scope.conditions.items()), validating=False)


def _unknown_names(
    model: TemplateModel, context: LoadContext, binding: Binding, problems: list[Problem]
) -> None:
    for name in binding.values:
        if name not in model.parameters:
            message = (
                f"Unknown Property {name}"
                if binding.values_are_properties
                else f"The Parameter ({name}) was not defined in template."
            )
            problems.append(Problem(model.path, 0, 0, message))
    if binding.top_level:
        for name, layers in context.environment.parameters.items():
            if name not in model.parameters:
                problems.append(layers[-1].problem(f"The Parameter ({name}) was not defined in template."))


def _given(
    name: str, schema: ParameterSchema, context: LoadContext, binding: Binding
) -> tuple[Any, str] | None:
    """A parameter's value and where it came from, by precedence; None when it has none."""
    environment = context.environment
    if name in binding.values:
        return binding.values[name], "value"
    if binding.top_level and name in environment.parameters:
        return merged_value(environment.parameters[name], schema.type), "environment"
    if name in environment.parameter_defaults:
        return merged_value(environment.parameter_defaults[name], schema.type), "parameter_defaults"
    if schema.has_default:
        return schema.default, "default"
    return None


def _parameters(
    model: TemplateModel, context: LoadContext, binding: Binding, problems: list[Problem]
) -> tuple[dict[str, Any], set[str], set[str]]:
    _unknown_names(model, context, binding, problems)
    environment = context.environment
    values: dict[str, Any] = {}
    hidden: set[str] = set()
    missing: set[str] = set()
    for name, schema in model.parameters.items():
        if schema.hidden or name in environment.encrypted_param_names:
            hidden.add(name)
        given = _given(name, schema, context, binding)
        if given is None:
            values[name] = UNKNOWN
            missing.add(name)
            continue
        raw, origin = given
        if raw is UNKNOWN:
            values[name] = UNKNOWN
            continue
        try:
            values[name] = typed_value(schema, raw)
        except ParameterValueError as error:
            reason = f"the value is not a valid {schema.type}" if name in hidden else str(error)
            problems.append(
                model.document.problem(("parameters", name), f"Parameter {name} ({origin}): {reason}")
            )
            continue
        for message in check_constraints(schema, values[name]):
            problems.append(
                model.document.problem(("parameters", name), f"Parameter {name} ({origin}): {message}")
            )
    for pseudo in ("OS::stack_name", "OS::stack_id", "OS::project_id"):
        values[pseudo] = binding.pseudo.get(pseudo, UNKNOWN)
    return values, hidden, missing


class _NeededValues:
    """Parameters without a value read where validation needs the value: conditions, policies.

    Heat validates a template with parameters left unset ("strict" off), but evaluates every
    condition and deletion policy it meets: reading a parameter that has neither a value nor a
    default there fails with "The Parameter (X) was not provided." (reported once per parameter).
    """

    def __init__(self, model: TemplateModel, missing: frozenset[str], problems: list[Problem]) -> None:
        self._model = model
        self._missing = missing
        self._problems = problems
        self._reported: set[str] = set()

    def check(self, snippet: Any, where: Any) -> bool:
        """False (with the problem reported) when `snippet` reads a parameter without a value."""
        if not self._missing or snippet is None:
            return True
        for name, at in _parameters_read(snippet, where):
            if name in self._missing:
                if name not in self._reported:
                    self._reported.add(name)
                    self._problems.append(
                        self._model.document.problem(at, f"The Parameter ({name}) was not provided.")
                    )
                return False
        return True


def _parameters_read(node: Any, where: Any) -> Iterator[tuple[str, Any]]:
    kind = type(node)
    if kind is Call:
        args = node.args
        if node.name == "get_param":
            name = args[0] if isinstance(args, list) and args else args
            if isinstance(name, str):
                yield name, node.where
        yield from _parameters_read(args, node.where)
    elif kind is dict:
        for value in node.values():
            yield from _parameters_read(value, where)
    elif kind is list:
        for value in node:
            yield from _parameters_read(value, where)


class _Conditions(Mapping[str, Any]):
    """Condition values, evaluated on first use (conditions may name one another; cycles are errors)."""

    def __init__(
        self, model: TemplateModel, scope: Evaluation, problems: list[Problem], needed: _NeededValues
    ) -> None:
        self._model = model
        self._scope = scope
        self._problems = problems
        self._needed = needed
        self._values: dict[str, Any] = {}
        self._evaluating: list[str] = []

    def __getitem__(self, name: str) -> Any:
        if name in self._values:
            return self._values[name]
        if name not in self._model.conditions:
            raise KeyError(name)
        if name in self._evaluating:
            cycle = " -> ".join([*self._evaluating[self._evaluating.index(name) :], name])
            raise FunctionError(f"Circular definition of conditions: {cycle}")
        self._evaluating.append(name)
        if not self._needed.check(self._model.conditions[name], ("conditions", name)):
            self._evaluating.pop()
            self._values[name] = UNKNOWN
            return UNKNOWN
        try:
            value = condition_value(self._model.conditions[name], self._scope)
        except FunctionError as error:
            self._problems.append(
                self._model.document.problem(error.where or ("conditions", name), str(error))
            )
            value = UNKNOWN
        finally:
            self._evaluating.pop()
        self._values[name] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._model.conditions)

    def __len__(self) -> int:
        return len(self._model.conditions)


def _holds(
    condition: Any, scope: Evaluation, problems: list[Problem], model: TemplateModel, where: Any
) -> bool:
    if condition is None:
        return True
    try:
        value = condition_value(condition, scope)
    except FunctionError as error:
        problems.append(model.document.problem(error.where or (*where, "condition"), str(error)))
        return True
    return value is not False  # an unknown condition keeps the resource: validation sees it


def _resource(
    model: TemplateModel,
    resource: ResourceModel,
    scope: Evaluation,
    context: LoadContext,
    problems: list[Problem],
) -> tuple[ResourceDefinition, Any]:
    properties = resource.properties
    references: Iterable[str] = resource.references.resources
    if resource.references.has_if:
        properties = _choose_branches(properties, scope, model, problems)
        references = set(_referenced_resources(properties)) | set(
            _referenced_resources(_choose_branches(resource.metadata, scope, model, problems))
        )
    depends_on = scope.resources.intersection({*resource.depends_on, *references})
    if resource.name in depends_on:
        depends_on = depends_on - {resource.name}
    effective_type, nested_kind, template_file = _effective_type(model, resource, context)
    deletion_policy = "Delete"
    if resource.deletion_policy is not None:
        deletion_policy = _static(resource.deletion_policy, scope) or "Delete"
    if isinstance(deletion_policy, str) and deletion_policy.islower():
        deletion_policy = deletion_policy.capitalize()  # the 2016-10-14 aliases
    raw = resource.raw
    definition = resource_definition(
        name=resource.name,
        type=effective_type,
        properties=raw.get("properties") or {},
        depends_on=depends_on,
        metadata=raw.get("metadata"),
        deletion_policy=deletion_policy,
        update_policy=raw.get("update_policy"),
        external_id=raw.get("external_id"),
        nested_kind=nested_kind,
        template_file=template_file,
        written_type=resource.type,
    )
    return definition, properties if properties is not None else {}


def _effective_type(
    model: TemplateModel, resource: ResourceModel, context: LoadContext
) -> tuple[str, str | None, str | None]:
    if resource.type.endswith(TEMPLATE_SUFFIXES) and "::" not in resource.type:
        mapping_target, is_file = relative_to(model.path, resource.type), True
    else:
        mapped = context.environment.registry.resolve(resource.name, resource.type)
        if mapped.problem:
            message = f"Resource {resource.name}: type {resource.type}: {mapped.problem}"
            raise TemplateError([model.document.problem((*resource.where, "type"), message)])
        mapping_target, is_file = mapped.target, mapped.is_file
    if is_file:
        return resource.type, "template", mapping_target
    return mapping_target, NESTED_KINDS.get(mapping_target), None


def _static(node: Any, scope: Evaluation) -> Any:
    try:
        value = scope.evaluate(node)
    except FunctionError:
        return node
    return None if value is UNKNOWN else value


def _chosen_branch(node: Call, scope: Evaluation, model: TemplateModel, problems: list[Problem]) -> Any:
    try:
        value = condition_value(node.args[0], scope)
    except FunctionError as error:
        problems.append(model.document.problem(error.where or node.where, str(error)))
        return None
    if value is UNKNOWN:
        return node
    if value:
        return _choose_branches(node.args[1], scope, model, problems)
    if len(node.args) == 3:
        return _choose_branches(node.args[2], scope, model, problems)
    return Call("if", [False, None], node.where)  # evaluates to "omitted"


def _choose_branches(node: Any, scope: Evaluation, model: TemplateModel, problems: list[Problem]) -> Any:
    """`node` with every `if` replaced by its chosen branch (conditions are known at binding)."""
    kind = type(node)
    if kind is Call:
        sizes = (2, 3) if scope.version.nullable_if else (3,)
        if node.name == "if" and isinstance(node.args, list) and len(node.args) in sizes:
            return _chosen_branch(node, scope, model, problems)
        return Call(node.name, _choose_branches(node.args, scope, model, problems), node.where)
    if kind is dict:
        return {key: _choose_branches(value, scope, model, problems) for key, value in node.items()}
    if kind is list:
        return [_choose_branches(value, scope, model, problems) for value in node]
    return node


def _referenced_resources(node: Any) -> Iterator[str]:
    kind = type(node)
    if kind is Call:
        args = node.args
        if node.name in ("get_resource", "Ref") and isinstance(args, str):
            yield args
        elif node.name == "get_attr" and isinstance(args, list) and args and isinstance(args[0], str):
            yield args[0]
        yield from _referenced_resources(args)
    elif kind is dict:
        for value in node.values():
            yield from _referenced_resources(value)
    elif kind is list:
        for value in node:
            yield from _referenced_resources(value)


def _check_cycles(model: TemplateModel, graph: Mapping[str, frozenset[str]], problems: list[Problem]) -> None:
    if _acyclic(graph):
        return
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        cycle = list(error.args[1])
        first = cycle[0]
        problems.append(
            model.document.problem(("resources", first), f"Circular Dependency Found: {' -> '.join(cycle)}")
        )


def _acyclic(graph: Mapping[str, frozenset[str]]) -> bool:
    """Whether every resource of `graph` can be ordered (Kahn's algorithm on plain dicts).

    graphlib's sorter builds an object per node; this answers the common question (no cycle) in a
    fraction of its time, and graphlib names the cycle when there is one. Most templates name a
    resource's requirements before it: then the template's order is already an order.
    """
    seen: set[str] = set()
    for name, requirements in graph.items():
        if not requirements <= seen:
            break
        seen.add(name)
    else:
        return True
    waiting = {name: len(requirements) for name, requirements in graph.items()}
    dependents: dict[str, list[str]] = {}
    for name, requirements in graph.items():
        for requirement in requirements:
            if requirement not in dependents:
                dependents[requirement] = [name]
            else:
                dependents[requirement].append(name)
    ready = [name for name, count in waiting.items() if count == 0]
    ordered = 0
    while ready:
        name = ready.pop()
        ordered += 1
        for dependent in dependents.get(name, ()):
            waiting[dependent] -= 1
            if waiting[dependent] == 0:
                ready.append(dependent)
    return ordered == len(graph)
