"""Resource states to and from the store's record rows."""

from __future__ import annotations

from reconciler.engine.resource_state import RecordStatus, ResourceState
from state.records import RecordedResource, RecordWrite


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
    )


def write_for(stack: str, state: ResourceState) -> RecordWrite:
    return RecordWrite(
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
        record_id=state.record_id,
    )
