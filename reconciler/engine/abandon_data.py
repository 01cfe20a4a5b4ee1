"""Heat's abandon data of a stack, from its records: what `openstack stack abandon` prints.

The shape is Heat's (`Stack.prepare_abandon`): the stack's name, id, action and status, template,
environment, files and resources; each resource as Heat's `Resource.prepare_abandon` gives it
(name, resource_id, type, action, status, metadata, resource_data), and a nested stack's resource
(a template resource, a group, a group's member) as the nested stack's own abandon data, as Heat's
`StackResource.prepare_abandon` does. It is what `adopt_from` and `reconciler adopt` read back.

A stack has no UUID here: its name is its identity, so `id` is a UUID derived from the name (the
same stack always gets the same one). The template and environment are the repository's when it is
given; a nested stack's are left empty (its definition is made from its parent's, not kept apart).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reconciler.engine.resource_state import RecordStatus
from reconciler.engine.stack_check import current_records
from reconciler.templates.stack_identity import stack_id
from state.records import RecordedResource
from state.stacks import StackState, StackStatus

# A stack's status -> Heat's (action, status) pair; the action of a settled stack is CREATE or UPDATE.
STACK_STATES: Mapping[StackStatus, tuple[str | None, str]] = {
    StackStatus.CONVERGED: (None, "COMPLETE"),
    StackStatus.SUSPENDED: ("SUSPEND", "COMPLETE"),
    StackStatus.FAILED: (None, "FAILED"),
    StackStatus.INVALID: (None, "FAILED"),
}
RESOURCE_STATES: Mapping[str, tuple[str, str]] = {
    RecordStatus.READY.value: ("CREATE", "COMPLETE"),
    RecordStatus.CREATE_IN_PROGRESS.value: ("CREATE", "IN_PROGRESS"),
    RecordStatus.UPDATE_IN_PROGRESS.value: ("UPDATE", "IN_PROGRESS"),
    RecordStatus.FAILED.value: ("CREATE", "FAILED"),
}


def abandon_data(
    stack: str,
    read_stack: Callable[[str], StackState | None],
    read_records: Callable[[str], Sequence[RecordedResource]],
    *,
    template: Mapping[str, Any] | None = None,
    environment: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The abandon data of `stack` and, within it, of every nested stack it holds."""
    state = read_stack(stack)
    action, status = _stack_state(state)
    resources: dict[str, Any] = {}
    for record in sorted(current_records(read_records(stack)), key=lambda record: record.logical_name):
        child = str(record.physical_id)
        if child.startswith(f"{stack}/"):
            resources[record.logical_name] = abandon_data(child, read_stack, read_records)
        else:
            resources[record.logical_name] = _resource(record, suspended=action == "SUSPEND")
    return {
        "name": stack,
        "id": stack_id(stack),
        "action": action,
        "status": status,
        "template": dict(template or {}),
        "environment": dict(environment or {}),
        "files": {},
        "resources": resources,
        "project_id": None,
        "stack_user_project_id": None,
        "tags": None,
    }


def _stack_state(state: StackState | None) -> tuple[str, str]:
    if state is None:
        return "CREATE", "IN_PROGRESS"
    action, status = STACK_STATES.get(state.status, (None, "IN_PROGRESS"))
    settled_action = "CREATE" if (state.status_generation or 1) <= 1 else "UPDATE"
    return action or settled_action, status


def _resource(record: RecordedResource, *, suspended: bool) -> dict[str, Any]:
    action, status = RESOURCE_STATES.get(record.status, ("CREATE", "IN_PROGRESS"))
    if suspended and record.type == "OS::Nova::Server" and status == "COMPLETE":
        action = "SUSPEND"
    return {
        "name": record.logical_name,
        "resource_id": record.physical_id,
        "type": record.type,
        "action": action,
        "status": status,
        "metadata": {},
        "resource_data": {},
    }
