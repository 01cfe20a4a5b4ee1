"""A whole stack's plan ahead of time, for plan notes: what each resource will see happen.

Resources are decided in dependency order against the values recorded now. A resource that reads a
value which will change (a dependency being created or replaced) cannot be decided yet: it is
DEFERRED, naming what it waits on, and the engine decides it once those have converged.
"""

from __future__ import annotations

import graphlib
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
from reconciler.plan.resource_diff import UpdateRules, plan_resource
from reconciler.templates.errors import Unresolved


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

    def nested(self, name: str, properties: Mapping[str, Any]) -> DesiredStack | None: ...

    def digest(self) -> str: ...


class _RecordedValues:
    """Values as recorded, except those of resources whose values are about to change."""

    def __init__(self, recorded: Mapping[str, RecordedResource], changing: set[str]) -> None:
        self._recorded = recorded
        self._changing = changing

    def _record(self, resource: str) -> RecordedResource:
        record = self._recorded.get(resource)
        if record is None or record.physical_id is None or resource in self._changing:
            raise Unresolved(resource)
        return record

    def physical_id(self, resource: str) -> str:
        physical_id = self._record(resource).physical_id
        assert physical_id is not None
        return physical_id

    def attribute(self, resource: str, name: str) -> Any:
        attributes = self._record(resource).attributes
        if name not in attributes:
            raise Unresolved(resource)
        return attributes[name]


def _dependency_order(graph: Mapping[str, frozenset[str]]) -> list[str]:
    sorter = graphlib.TopologicalSorter({name: set(required) for name, required in graph.items()})
    return [name for name in sorter.static_order() if name in graph]


def plan_stack(
    definition: DesiredStack,
    recorded: Mapping[str, RecordedResource],
    rules: UpdateRules,
    *,
    prune: bool = True,
    stack: str = "",
    nested: NestedRecords | None = None,
) -> StackPlan:
    """Every resource's action converging `recorded` to `definition`; deletions only when pruning.

    With `nested` (the records of nested stacks) and the `stack`'s name, a resource owning a nested
    stack carries the plan of that stack, planned against its own records, at every level.
    """
    graph = definition.graph()
    changing: set[str] = set()
    values = _RecordedValues(recorded, changing)
    plans: list[ResourcePlan] = []
    for name in _dependency_order(graph):
        type_name = definition.resources[name].type
        try:
            desired = definition.resolve_properties(name, values)
        except Unresolved:
            waiting = frozenset(required for required in graph[name] if required in changing)
            if name not in recorded or recorded[name].physical_id is None:
                plans.append(ResourcePlan(name, type_name, Action.CREATE, waiting_on=waiting))
            else:
                plans.append(ResourcePlan(name, type_name, Action.DEFERRED, waiting_on=waiting))
            changing.add(name)
            continue
        kind = definition.resources[name].nested_kind
        if kind is not None:
            plan = _nested_resource_plan(
                definition, name, desired, recorded.get(name), rules, stack=stack, nested=nested, prune=prune
            )
        else:
            plan = plan_resource(name, type_name, desired, recorded.get(name), rules)
        if plan.action in (Action.CREATE, Action.REPLACE):
            changing.add(name)
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
    held = nested.records(child) if nested is not None and record is not None else {}
    kind = definition.resources[name].nested_kind
    desired = effective_properties(kind, desired, record, held)
    plan = plan_resource(name, definition.resources[name].type, desired, record, rules)
    child_definition = definition.nested(
        name, scaled_size(desired, record, len(held)) if kind == "autoscaling" else desired
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
