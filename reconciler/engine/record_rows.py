"""Resource states to and from the store's record rows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.interface import LiveResource
from reconciler.engine.resource_state import RecordStatus, ResourceState
from reconciler.plan.property_digest import properties_digest
from state.record_batches import serialize_json
from state.records import RecordedResource, RecordWrite

_SCALARS = frozenset({str, int, float, bool, type(None)})


def plain_json(value: Any) -> Any:
    """The value with every mapping a dict and every sequence a list, as JSON columns need.

    Called once, where a value enters the engine (resolved properties, live attributes), so that
    writing a record is a plain copy of what the state already holds. Scalars inside containers are
    copied without a call of their own: most of a value's leaves are scalars.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list or kind is tuple:
        return [item if type(item) in _SCALARS else plain_json(item) for item in value]
    if kind is dict or isinstance(value, Mapping):
        return {
            key if type(key) is str else str(key): item if type(item) in _SCALARS else plain_json(item)
            for key, item in value.items()
        }
    return value


# Heat's `show` is the whole live body: too big to keep per resource, it is not recorded.
UNRECORDED_ATTRIBUTES = frozenset({"show"})


def recorded_attributes(live: LiveResource) -> dict[str, Any]:
    """The attributes worth keeping from a live resource, as plain JSON values."""
    attributes = live.attributes
    if not UNRECORDED_ATTRIBUTES.isdisjoint(attributes):
        attributes = {name: value for name, value in attributes.items() if name not in UNRECORDED_ATTRIBUTES}
    copied: dict[str, Any] = plain_json(attributes)
    return copied


def plan_fields(write: RecordWrite | RecordedResource) -> tuple[Any, ...]:
    """The fields of a record a plan memo relies on: a write changing none of them leaves the
    stack's records stamp (`state.plan_memos`) as it is."""
    return (write.type, write.status, write.physical_id, write.inputs_digest, write.replaced_by)


def state_from_record(record: RecordedResource) -> ResourceState:
    try:
        status = RecordStatus(record.status)
    except ValueError:
        status = RecordStatus.FAILED
    return ResourceState(
        name=record.logical_name,
        type=record.type,
        status=status,
        generation=record.generation,
        record_id=record.id,
        physical_id=record.physical_id,
        properties=record.properties,
        attributes=record.attributes,
        attempts=record.attempts,
        next_attempt_at=record.next_attempt_at,
        last_error=record.last_error,
        recorded_replaced_by=record.replaced_by,
        deletion_policy=record.deletion_policy,
        inputs_digest=record.inputs_digest,
        inputs_of=record.properties,
        stored_plan_fields=plan_fields(record),
    )


def write_for(stack: str, state: ResourceState) -> RecordWrite:
    properties = state.encoded_properties
    if properties is None or properties[0] is not state.properties:
        encoded = (state.properties, serialize_json(state.properties), properties_digest(state.properties))
        properties = state.encoded_properties = encoded
    attributes = state.encoded_attributes
    if attributes is None or attributes[0] is not state.attributes:
        attributes = state.encoded_attributes = (state.attributes, serialize_json(state.attributes))
    write = RecordWrite(
        stack=stack,
        logical_name=state.name,
        type=state.type,
        status=state.status.value,
        generation=state.generation,
        physical_id=state.physical_id,
        properties=state.properties,
        attributes=state.attributes,
        replaced_by=state.replaced_by,
        attempts=state.attempts,
        next_attempt_at=state.next_attempt_at,
        last_error=state.last_error,
        deletion_policy=state.deletion_policy,
        record_id=state.record_id,
        properties_json=properties[1],
        attributes_json=attributes[1],
        properties_digest=properties[2],
        inputs_digest=state.inputs_digest if state.inputs_of is state.properties else None,
    )
    if state.record_id is not None and state.stored_plan_fields == plan_fields(write):
        write.plan_fields_kept = True
    return write
