"""The values a stack's resources expose to `get_resource` / `get_attr`, read from its coordinator.

A plain resource answers from its record's attributes. A resource owning a nested stack answers
with Heat's rules for groups and template resources (`reconciler.templates.group_attributes`),
from its nested stack's outputs or its members' ids and attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reconciler.engine.drift import BASELINE
from reconciler.templates.errors import Unresolved
from reconciler.templates.group_attributes import MemberValues, nested_attribute

if TYPE_CHECKING:
    from reconciler.engine.resource_state import ResourceState
    from reconciler.engine.stack_run import StackRun

ALL_ATTRIBUTES = ""


class NestedValues:
    """An `AttributeSource` over one stack: settled resources only."""

    def __init__(self, run: StackRun) -> None:
        self._run = run

    def _state(self, resource: str) -> ResourceState:
        resources = self._run.resources
        state = resources.records.get(resource)
        if state is None or state.physical_id is None or not resources.is_settled(resource):
            raise Unresolved(resource)
        return state

    def physical_id(self, resource: str) -> str:
        physical_id = self._state(resource).physical_id
        assert physical_id is not None
        return physical_id

    def attribute(self, resource: str, name: str) -> Any:
        state = self._state(resource)
        definition = self._run.definition
        kind = None if definition is None else definition.resources[resource].nested_kind
        if kind is None or definition is None:
            if name in ("show", ALL_ATTRIBUTES):
                return {key: value for key, value in state.attributes.items() if key != BASELINE}
            return state.attributes.get(name)
        resource_definition: Any = definition.resources[resource]
        if kind in ("template", "stack"):
            members = {"": MemberValues(state.physical_id, state.attributes)}
        else:
            assert state.physical_id is not None
            members = {
                member: MemberValues(values.get("physical_id"), values.get("attributes") or {})
                for member, values in self._run.context.children.nested_members(state.physical_id).items()
            }
        return nested_attribute(resource_definition, members, name)
