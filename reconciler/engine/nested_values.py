"""The values a stack's resources expose to `get_resource` / `get_attr`, read from its coordinator.

A plain resource answers from its record's attributes. A resource owning a nested stack answers
with Heat's rules for groups and template resources (`reconciler.templates.group_attributes`),
from its nested stack's outputs or its members' ids and attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reconciler.engine.drift import BASELINE
from reconciler.templates.errors import Unresolved
from reconciler.templates.group_attributes import STACK_ID_OUTPUT, MemberValues, nested_attribute
from reconciler.templates.nesting import removed_members

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
        """What `get_resource` gives: the physical id, or a template resource's `OS::stack_id` output."""
        state = self._state(resource)
        assert state.physical_id is not None
        if self._kind(resource) == "template" and STACK_ID_OUTPUT in state.attributes:
            return str(state.attributes[STACK_ID_OUTPUT])
        return state.physical_id

    def _kind(self, resource: str) -> str | None:
        definition = self._run.definition
        found = None if definition is None else definition.resources.get(resource)
        return None if found is None else found.nested_kind

    def member_references(self, child: str) -> dict[str, str | None]:
        """A group's members there now (nested stack `child`): name -> what `get_resource` gives."""
        return {name: member.reference for name, member in self._members(child).items()}

    def _members(self, child: str) -> dict[str, MemberValues]:
        return {
            member: MemberValues(values.get("physical_id"), values.get("attributes") or {})
            for member, values in self._run.context.children.nested_members(child).items()
        }

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
            return nested_attribute(resource_definition, members, name)
        assert state.physical_id is not None
        removed = removed_members(state.properties)
        return nested_attribute(resource_definition, self._members(state.physical_id), name, removed=removed)
