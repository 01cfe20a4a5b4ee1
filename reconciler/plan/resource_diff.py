"""One resource's decision: create, update in place, replace, or leave it alone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from reconciler.plan.actions import Action, ResourcePlan
from reconciler.plan.property_digest import properties_digest
from reconciler.plan.recorded import RecordedResource


class UpdateRules(Protocol):
    """Which changed properties of a type force a replacement (the catalog answers this)."""

    def replace_reasons(
        self, type_name: str, changed: frozenset[str], desired: Mapping[str, Any]
    ) -> frozenset[str]: ...


_MISSING = object()


def changed_properties(applied: Mapping[str, Any], desired: Mapping[str, Any]) -> frozenset[str]:
    """The property names whose desired value differs from the applied one (added or removed too)."""
    names = applied.keys() | desired.keys()
    return frozenset(name for name in names if applied.get(name, _MISSING) != desired.get(name, _MISSING))


def plan_resource(
    name: str,
    type_name: str,
    desired: Mapping[str, Any],
    recorded: RecordedResource | None,
    rules: UpdateRules,
) -> ResourcePlan:
    """The action converging `recorded` to `desired` (fully resolved properties)."""
    if recorded is None or recorded.physical_id is None:
        return ResourcePlan(name, type_name, Action.CREATE, desired)
    applied = recorded.properties
    if recorded.type != type_name:
        return ResourcePlan(
            name, type_name, Action.REPLACE, desired, replace_reasons=frozenset({"type"}), applied=applied
        )
    if not recorded.failed and _as_recorded(recorded, desired):
        return ResourcePlan(name, type_name, Action.UNCHANGED, desired, applied=applied)
    changed = changed_properties(applied, desired)
    if recorded.failed:
        return ResourcePlan(
            name, type_name, Action.REPLACE, desired, changed, frozenset({"status"}), applied=applied
        )
    if not changed:
        return ResourcePlan(name, type_name, Action.UNCHANGED, desired, applied=applied)
    reasons = rules.replace_reasons(type_name, changed, desired)
    action = Action.REPLACE if reasons else Action.UPDATE
    return ResourcePlan(name, type_name, action, desired, changed, reasons, applied=applied)


def _as_recorded(recorded: RecordedResource, desired: Mapping[str, Any]) -> bool:
    """`desired` is what was applied, by the digest recorded with it (its properties left unread)."""
    return recorded.properties_digest is not None and recorded.properties_digest == properties_digest(desired)
