"""The values a stack's resources expose to `get_resource` / `get_attr`, read from its coordinator."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reconciler.templates.errors import Unresolved

if TYPE_CHECKING:
    from reconciler.engine.resource_state import ResourceState
    from reconciler.engine.stack_run import StackRun


class NestedValues:
    """An `AttributeSource` over one stack: settled resources only, nested stacks through their outputs."""

    def __init__(self, run: StackRun) -> None:
        self._run = run

    def _state(self, resource: str) -> ResourceState:
        state = self._run.records.get(resource)
        if state is None or state.physical_id is None or resource not in self._run.settled:
            raise Unresolved(resource)
        return state

    def physical_id(self, resource: str) -> str:
        physical_id = self._state(resource).physical_id
        assert physical_id is not None
        return physical_id

    def attribute(self, resource: str, name: str) -> Any:
        state = self._state(resource)
        if name == "show":
            return {**state.properties, **state.attributes}
        return state.attributes.get(name)
