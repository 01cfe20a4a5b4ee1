"""A whole stack's plan ahead of time, for plan notes: what each resource will see happen.

Resources are decided in dependency order against the values recorded now. A resource that reads a
value which will change (the id of a dependency being created or replaced, an attribute of one being
updated too) is decided as apply will decide it once that value is known: the properties reading it
change, so it is updated in place or replaced by the same rules as any other change, its new values
shown as known only after apply. An attribute that an update leaves as it was is still planned as
changing: the plan says "update" where apply may then find nothing to do.

A resource whose recorded properties were resolved from exactly what it would be resolved from now
(`resolution_inputs`: the digest apply records beside them), with nothing it requires moving, is
unchanged without being resolved: a one-line change of a large stack resolves the few resources
it touches and those reading them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Protocol

from reconciler.plan.actions import Action, ResourcePlan, StackPlan
from reconciler.plan.deletion_order import deletion_waves
from reconciler.plan.nested_plans import (
    NestedRecords,
    effective_properties,
    nested_child,
    nested_update,
    removal_plan,
    scaled_size,
)
from reconciler.plan.recorded import RecordedResource
from reconciler.plan.resolution_inputs import ScopedStack, resource_inputs, stack_inputs
from reconciler.plan.resource_diff import UpdateRules, plan_resource
from reconciler.plan.unknown_values import shown_unknowns
from reconciler.templates.errors import FunctionError, TemplateError, Unresolved
from reconciler.templates.evaluation import is_unknown


class AttributeSource(Protocol):
    def physical_id(self, resource: str) -> str: ...

    def attribute(self, resource: str, name: str) -> Any: ...


class DesiredResource(Protocol):
    @property
    def type(self) -> str: ...

    @property
    def nested_kind(self) -> str | None: ...


class DesiredStack(Protocol):
    """What planning needs of a `StackDefinition`."""

    @property
    def resources(self) -> Mapping[str, DesiredResource]: ...

    def graph(self) -> Mapping[str, frozenset[str]]: ...

    def resolve_properties(self, name: str, source: AttributeSource) -> dict[str, Any]: ...

    def resolve_properties_known(self, name: str, source: AttributeSource) -> dict[str, Any]: ...

    def nested(self, name: str, properties: Mapping[str, Any]) -> DesiredStack | None: ...

    def digest(self) -> str: ...


class _RecordedValues:
    """Values as recorded, except those about to change: every value of a resource being created or
    replaced, and the attributes of one being updated in place."""

    def __init__(self, recorded: Mapping[str, RecordedResource]) -> None:
        self._recorded = recorded
        self.changing: set[str] = set()
        self.updating: set[str] = set()
        self.moved: set[str] = set()  # either

    def _record(self, resource: str) -> RecordedResource:
        record = self._recorded.get(resource)
        if record is None or record.physical_id is None or resource in self.changing:
            raise Unresolved(resource)
        return record

    def physical_id(self, resource: str) -> str:
        physical_id = self._record(resource).physical_id
        assert physical_id is not None
        return physical_id

    def attribute(self, resource: str, name: str) -> Any:
        attributes = self._record(resource).attributes
        if name not in attributes or resource in self.updating:
            raise Unresolved(resource)
        return attributes[name]

    def moving(self, plan: ResourcePlan) -> None:
        """Note what `plan` does to the values others read."""
        if plan.action in (Action.CREATE, Action.REPLACE):
            self.changing.add(plan.name)
            self.moved.add(plan.name)
        elif plan.action is Action.UPDATE:
            self.updating.add(plan.name)
            self.moved.add(plan.name)


def resolved_as_recorded(
    definition: DesiredStack, recorded: Mapping[str, RecordedResource]
) -> frozenset[str]:
    """The resources whose recorded properties were resolved from what they would be resolved from
    now (`resolution_inputs`), as far as the values recorded now tell: unchanged, unless something
    they require moves in this plan."""
    shared = stack_inputs(definition) if isinstance(definition, ScopedStack) else None
    if shared is None:
        return frozenset()
    graph = definition.graph()
    resources = definition.resources
    physical_ids = {name: record.physical_id for name, record in recorded.items()}
    found = []
    for name, record in recorded.items():
        resource = resources.get(name)
        if (
            record.inputs_digest is None
            or resource is None
            or record.failed
            or record.physical_id is None
            or record.type != resource.type
            or resource.nested_kind is not None
        ):
            continue
        written = getattr(resource, "properties", None)
        digest = resource_inputs(shared, resource.type, written, graph[name], physical_ids.get)
        if record.inputs_digest == digest:
            found.append(name)
    return frozenset(found)


def _dependency_order(graph: Mapping[str, frozenset[str]]) -> list[str]:
    """Every resource after those it requires, in template order otherwise (a depth-first walk:
    a fraction of what building a `graphlib` sorter costs at 50,000 resources). Loading refuses
    cycles; one met here anyway ends the walk at the resource closing it, never loops."""
    order: list[str] = []
    placed: set[str] = set()
    entered: set[str] = set()
    for root in graph:
        if root in placed:
            continue
        if placed.issuperset(graph[root]):  # most resources: written after all they require
            placed.add(root)
            order.append(root)
            continue
        pending = [root]
        while pending:
            name = pending[-1]
            if name in placed:
                pending.pop()
                continue
            waiting = [required for required in graph[name] if required not in placed and required in graph]
            if waiting and name not in entered:
                entered.add(name)
                pending.extend(waiting)
                continue
            placed.add(name)
            order.append(name)
            pending.pop()
    return order


def plan_stack(
    definition: DesiredStack,
    recorded: Mapping[str, RecordedResource],
    rules: UpdateRules,
    *,
    prune: bool = True,
    stack: str = "",
    nested: NestedRecords | None = None,
    settled: frozenset[str] | None = None,
) -> StackPlan:
    """Every resource's action converging `recorded` to `definition`; deletions only when pruning.

    With `nested` (the records of nested stacks) and the `stack`'s name, a resource owning a nested
    stack carries the plan of that stack, planned against its own records, at every level.
    `settled`: `resolved_as_recorded` of these, when the caller knows it (a settled resource's
    record is never read: `recorded` may fetch records as they are asked for).
    """
    graph = definition.graph()
    resources = definition.resources
    values = _RecordedValues(recorded)
    if settled is None:
        settled = resolved_as_recorded(definition, recorded)
    moved = values.moved
    plans: list[ResourcePlan] = []
    unchanged = Action.UNCHANGED
    for name in _dependency_order(graph):
        resource = resources[name]
        if name in settled and moved.isdisjoint(graph[name]):
            plans.append(ResourcePlan(name, resource.type, unchanged))
            continue
        waiting: frozenset[str] = frozenset()
        try:
            desired = definition.resolve_properties(name, values)
        except Unresolved:
            desired = definition.resolve_properties_known(name, values)
            waiting = frozenset(graph[name] & (values.changing | values.updating))
        record = recorded.get(name)
        if resource.nested_kind is not None:
            plan = _nested_resource_plan(
                definition, name, desired, record, rules, stack=stack, nested=nested, prune=prune
            )
        else:
            plan = plan_resource(name, resource.type, desired, record, rules)
        if waiting:
            plan = dataclasses.replace(plan, waiting_on=waiting)
        if plan.action is not Action.UNCHANGED:
            values.moving(plan)
        plans.append(plan)
    doomed = frozenset(recorded.keys() - graph.keys()) if prune else frozenset()
    waves = deletion_waves(doomed, recorded)
    for wave in waves:
        plans.extend(removal_plan(stack, recorded[name], nested) for name in wave)
    return StackPlan(tuple(plans), waves)


def _nested_resource_plan(
    definition: DesiredStack,
    name: str,
    desired: dict[str, Any],
    record: RecordedResource | None,
    rules: UpdateRules,
    *,
    stack: str,
    nested: NestedRecords | None,
    prune: bool,
) -> ResourcePlan:
    """A resource owning a nested stack: updated in place, with the plan of what it holds."""
    child = nested_child(stack, name)
    kind = definition.resources[name].nested_kind
    held = nested.records(child) if nested is not None and record is not None else {}
    desired = effective_properties(kind, desired, record, held)
    plan = dataclasses.replace(
        plan_resource(name, definition.resources[name].type, desired, record, rules), kind=kind
    )
    child_definition = _nested_definition(
        definition, name, scaled_size(desired, record, len(held)) if kind == "autoscaling" else desired
    )
    inside = StackPlan(())
    if (
        child_definition is not None
        and nested is not None
        and not _as_last_given(plan, child_definition, nested, child)
    ):
        inside = plan_stack(child_definition, held, rules, prune=prune, stack=child, nested=nested)
    return nested_update(plan, inside, record)


def _as_last_given(
    plan: ResourcePlan, child_definition: DesiredStack, nested: NestedRecords, child: str
) -> bool:
    """The nested stack would be given the very definition it was last given: nothing in it changes.

    Planned without walking it, so an unchanged nested stack costs one digest however large it is."""
    return plan.action is Action.UNCHANGED and nested.digest(child) == child_definition.digest()


def _nested_definition(definition: DesiredStack, name: str, desired: dict[str, Any]) -> DesiredStack | None:
    """The nested stack `name` would be given; one whose inputs are known only after apply is built
    with those inputs standing as the text the plan shows for them (None when that cannot build it,
    a count known only after apply for one)."""
    if not is_unknown(desired):
        return definition.nested(name, desired)
    try:
        return definition.nested(name, shown_unknowns(desired))
    except (TemplateError, FunctionError, Unresolved, ValueError, TypeError):
        return None
