"""`reconciler check`: every resource of a stack looked at in the cloud now, changing nothing.

Each resource's record is compared with what the cloud reports, one batched observe call per type,
with the same rules the engine's drift repair uses; the verdicts are only reported.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from providers.interface import ProviderError
from reconciler.engine.drift import Drift, detect_drift
from reconciler.engine.provider_set import ProviderSet
from reconciler.engine.record_rows import state_from_record
from reconciler.engine.resource_state import RecordStatus
from state.records import RecordedResource


class Verdict(enum.StrEnum):
    OK = "ok"
    MISSING = "missing"  # gone from the cloud
    FAILED = "failed"  # the cloud reports it in error
    CHANGED = "changed"  # a property the template sets moved out of band
    NOT_CREATED = "not created"  # the record has no physical resource (yet)
    UNKNOWN = "unknown"  # the cloud could not be asked


DRIFT_VERDICTS = {
    Drift.IN_SYNC: Verdict.OK,
    Drift.MISSING: Verdict.MISSING,
    Drift.FAILED: Verdict.FAILED,
    Drift.CHANGED: Verdict.CHANGED,
}


@dataclass(frozen=True)
class ResourceCheck:
    """One resource's verdict; `detail` says why when it is not OK."""

    stack: str
    resource: str
    type: str
    physical_id: str | None
    verdict: Verdict
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.OK


def current_records(records: Sequence[RecordedResource]) -> list[RecordedResource]:
    """The records that stand for the stack's resources now (not replaced, not on their way out)."""
    leaving = {RecordStatus.RETIRED.value, RecordStatus.DELETE_IN_PROGRESS.value}
    return [record for record in records if record.replaced_by is None and record.status not in leaving]


def nested_stacks(stack: str, records: Sequence[RecordedResource], providers: ProviderSet) -> list[str]:
    """The child stacks this stack's records stand for (template resources, groups, members)."""
    return sorted(
        str(record.physical_id)
        for record in current_records(records)
        if providers.resource_type(record.type) is None and str(record.physical_id).startswith(f"{stack}/")
    )


def check_stack(
    stack: str, records: Sequence[RecordedResource], providers: ProviderSet
) -> list[ResourceCheck]:
    """A verdict per resource of `stack` (nested stacks aside), in resource-name order."""
    by_type: dict[str, list[RecordedResource]] = defaultdict(list)
    checks: list[ResourceCheck] = []
    for record in current_records(records):
        if providers.resource_type(record.type) is None and str(record.physical_id).startswith(f"{stack}/"):
            continue  # a nested stack: its own resources are checked as a stack of their own
        if record.physical_id is None:
            checks.append(_check(record, Verdict.NOT_CREATED, record.last_error or "never created"))
        else:
            by_type[record.type].append(record)
    for type_name, typed in by_type.items():
        checks.extend(_observed(type_name, typed, providers))
    return sorted(checks, key=lambda check: check.resource)


def _observed(
    type_name: str, records: Sequence[RecordedResource], providers: ProviderSet
) -> list[ResourceCheck]:
    provider = providers.provider_for(type_name)
    if provider is None:
        return [_check(record, Verdict.UNKNOWN, f"no provider serves {type_name}") for record in records]
    try:
        live = provider.observe(type_name, [str(record.physical_id) for record in records])
    except ProviderError as error:
        return [
            _check(record, Verdict.UNKNOWN, f"observing {type_name} failed: {error}") for record in records
        ]
    checks = []
    for record in records:
        found = live.get(str(record.physical_id))
        verdict = DRIFT_VERDICTS[detect_drift(state_from_record(record), found)]
        detail = found.status_reason if found is not None and verdict is not Verdict.OK else ""
        checks.append(_check(record, verdict, detail))
    return checks


def _check(record: RecordedResource, verdict: Verdict, detail: str) -> ResourceCheck:
    return ResourceCheck(record.stack, record.logical_name, record.type, record.physical_id, verdict, detail)
