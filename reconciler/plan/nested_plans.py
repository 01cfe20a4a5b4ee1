"""Plans of nested stacks: what a template resource, group or OS::Heat::Stack does to what it holds.

A resource owning a nested stack is never replaced for a changed property: its nested stack is
updated in place, as the engine converges it (a changed type still replaces it). Its plan carries
the plan of its nested stack, planned against that stack's own records, so a group's count going
from 3 to 2 reads as an update of the group that deletes member 2 and everything member 2 holds.
A nested resource leaving a template takes all it holds with it (or keeps all of it, under
`Retain`); those are listed too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Protocol

from reconciler.plan.actions import Action, ResourcePlan, StackPlan
from reconciler.plan.deletion_order import deletion_waves
from reconciler.plan.recorded import RecordedResource
from reconciler.templates.binding import NESTED_KINDS
from reconciler.templates.group_attributes import MemberValues
from reconciler.templates.removal_policies import with_removed_names

RETAIN = "Retain"


class NestedRecords(Protocol):
    """The records of any stack, nested ones included ("app/nodes/2"), as the plan layer sees them."""

    def records(self, stack: str) -> Mapping[str, RecordedResource]: ...

    def digest(self, stack: str) -> str | None:
        """The definition digest the stack was last given (None: never given one)."""
        ...


def nested_child(stack: str, resource: str) -> str:
    """The name of the nested stack owned by `resource` of `stack`."""
    return f"{stack}/{resource}"


def is_nested_record(stack: str, record: RecordedResource) -> bool:
    return record.physical_id == nested_child(stack, record.name)


def effective_properties(
    kind: str | None,
    desired: Mapping[str, Any],
    recorded: RecordedResource | None,
    children: Mapping[str, Any],
) -> dict[str, Any]:
    """A group's properties as the engine hands them to its members: the removal list resolved."""
    if kind != "group":
        return dict(desired)
    references = {
        name: MemberValues(record.physical_id, record.attributes).reference
        for name, record in children.items()
    }
    return with_removed_names(desired, recorded.properties if recorded is not None else None, references)


SCALING_BOUNDS = ("min_size", "max_size", "desired_capacity")


def scaled_size(
    desired: Mapping[str, Any], recorded: RecordedResource | None, members: int
) -> dict[str, Any]:
    """The running system owns a scaling group's size between the bounds git declares: a plan whose
    bounds are those recorded keeps the members there are; one changing them sizes it as git says."""
    if recorded is None or not members:
        return dict(desired)
    if any(desired.get(name) != recorded.properties.get(name) for name in SCALING_BOUNDS):
        return dict(desired)
    try:
        minimum, maximum = int(desired.get("min_size") or 0), int(desired.get("max_size") or 0)
    except (TypeError, ValueError):
        return dict(desired)
    return {**desired, "desired_capacity": max(minimum, min(members, maximum))}


def nested_update(plan: ResourcePlan, nested: StackPlan, recorded: RecordedResource | None) -> ResourcePlan:
    """`plan` of a resource owning a nested stack: updated in place when anything in it changes."""
    if plan.action is Action.REPLACE and plan.replace_reasons != frozenset({"type"}):
        plan = replace(plan, action=Action.UPDATE, replace_reasons=frozenset())
    if plan.action is Action.UNCHANGED and nested.changes_anything:
        plan = replace(plan, action=Action.UPDATE)
    if recorded is None and plan.action is not Action.CREATE:
        plan = replace(plan, action=Action.CREATE, changed=frozenset(), replace_reasons=frozenset())
    return replace(plan, nested=nested)


def removal_plan(
    stack: str, record: RecordedResource, state: NestedRecords | None, *, retained: bool = False
) -> ResourcePlan:
    """A recorded resource leaving its stack, with all it holds when it owns a nested stack."""
    retained = retained or record.deletion_policy == RETAIN
    action = Action.RETAIN if retained else Action.DELETE
    if state is None or not is_nested_record(stack, record):
        return ResourcePlan(record.name, record.type, action, applied=record.properties)
    child = nested_child(stack, record.name)
    held = state.records(child)
    waves = deletion_waves(frozenset(held), held)
    plans = tuple(
        removal_plan(child, held[name], state, retained=retained) for wave in waves for name in wave
    )
    kind = NESTED_KINDS.get(record.type, "template")
    return ResourcePlan(
        record.name, record.type, action, nested=StackPlan(plans, waves), applied=record.properties, kind=kind
    )
