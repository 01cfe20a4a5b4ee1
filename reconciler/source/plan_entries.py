"""A stack plan as the entries people read: each top-level resource that changes once, in the list
of its action, and a group's members as entries of their own.

A group is never shown as changing itself when its members change: a count going from 3 to 2 is the
deletion of `nodes.2` (holding its server, port and volume), not an update of `nodes`. The group
has an entry of its own only when it is created, replaced or deleted as a whole, or when what
changes is the group's own properties and no member.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from reconciler.plan import Action, ResourcePlan, StackPlan
from reconciler.source.note_lines import HeldChange, PlannedActions, PlannedChange
from reconciler.source.property_diffs import property_changes
from reconciler.templates import StackDefinition
from reconciler.templates.group_attributes import GROUP_KINDS

LISTED = {
    Action.CREATE: "create",
    Action.UPDATE: "update",
    Action.REPLACE: "replace",
    Action.DELETE: "delete",
    Action.RETAIN: "delete",
}
WHOLE_GROUP_ACTIONS = frozenset({Action.CREATE, Action.REPLACE, Action.DELETE, Action.RETAIN})


def planned_actions(plan: StackPlan, definition: StackDefinition | None = None) -> PlannedActions:
    """`plan` reduced to its entries, with property changes when `definition` is given."""
    lists: dict[str, list[PlannedChange]] = {name: [] for name in ("create", "update", "replace", "delete")}
    for action, entry in _entries(plan, definition):
        lists[action].append(entry)
    return PlannedActions(
        create=tuple(lists["create"]),
        update=tuple(lists["update"]),
        replace=tuple(lists["replace"]),
        delete=tuple(lists["delete"]),
        unchanged=sum(1 for item in plan.resources if item.action is Action.UNCHANGED),
    )


def _entries(plan: StackPlan, definition: StackDefinition | None) -> Iterator[tuple[str, PlannedChange]]:
    for item in plan.resources:
        if item.action is Action.UNCHANGED:
            continue
        if item.kind not in GROUP_KINDS or item.nested is None:
            yield LISTED[item.action], _entry(item, item.name, definition, holds=_held(item.nested))
            continue
        members = [member for member in item.nested.resources if member.action is not Action.UNCHANGED]
        if item.action in WHOLE_GROUP_ACTIONS or not members:
            yield LISTED[item.action], _entry(item, item.name, definition, holds=())
        for member in members:
            entry = _entry(member, f"{item.name}.{member.name}", definition, holds=_held(member.nested))
            yield LISTED[member.action], _as_member(entry, item.name, member.name)


def _entry(
    item: ResourcePlan, path: str, definition: StackDefinition | None, *, holds: tuple[HeldChange, ...]
) -> PlannedChange:
    top_level = path == item.name
    return PlannedChange(
        resource=path,
        type=item.type,
        changes=() if definition is None else property_changes(item, definition, top_level=top_level),
        because=tuple(sorted(item.replace_reasons)) if item.action is Action.REPLACE else (),
        retained=item.action is Action.RETAIN,
        holds=holds,
        reads=tuple(sorted(item.waiting_on)),
    )


def _as_member(entry: PlannedChange, group: str, member: str) -> PlannedChange:
    return dataclasses.replace(entry, group=group, member=member)


def _held(nested: StackPlan | None) -> tuple[HeldChange, ...]:
    if nested is None:
        return ()
    return tuple(
        HeldChange(path, item.action.value)
        for path, item in nested.flattened()
        if item.action is not Action.UNCHANGED
    )
