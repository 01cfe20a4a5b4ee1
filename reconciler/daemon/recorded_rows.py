"""The store's records of a stack as the plan layer sees them."""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.plan import RecordedResource
from state import ComparedRecord

FAILED_RECORD_STATUSES = frozenset({"FAILED", "ERROR"})


def recorded_for_plan(records: Iterable[ComparedRecord]) -> dict[str, RecordedResource]:
    """The store's current records of one stack as the plan layer sees them."""
    return {
        record.logical_name: RecordedResource(
            record.logical_name,
            record.type,
            record.physical_id,
            record.properties,
            record.attributes,
            record.status.upper() in FAILED_RECORD_STATUSES,
            record.deletion_policy,
            record.properties_digest,
            record.inputs_digest,
        )
        for record in records
    }
