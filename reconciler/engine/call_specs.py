"""A provider call as data, and its outcome as data: every cloud call is described here once.

The coordinator of a stack decides a call as a `CallSpec`. Its own pool runs the spec against the
stack's provider (`CallSpec.run_with`); when that pool is full, the same spec crosses the work
queue as plain JSON, a worker (itself or any other) claims it, runs it against its own providers
for the cloud named, and stores the outcome as the item's payload; the coordinator reads the
outcome back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from providers.interface import LiveResource, LiveStatus, Marker, Permanent, Provider, Retryable
from reconciler.engine import outcomes
from reconciler.engine.outcomes import CallOutcome, Failed, ObserveOutcome, RetryLater
from reconciler.engine.provider_calls import (
    call_create,
    call_delete,
    call_find,
    call_observe,
    call_snapshot_delete,
    call_suspension,
    call_take_external,
    call_update,
)
from reconciler.engine.provider_set import CloudProviders
from reconciler.engine.record_rows import plain_json

CALL_KIND = "cloud-call"  # the work queue's `kind` for these items


class CallSpec(NamedTuple):
    """One provider call: `create`, `update`, `delete`, `snapshot_delete`, `take_external`, `find`
    (by marker), `suspend`, `resume` or `observe` of a type on a named cloud. A tuple: one is made
    for every call sent, so making one costs little."""

    op: str
    cloud: str
    type_name: str
    physical_ids: tuple[str, ...] = ()
    properties: Mapping[str, Any] | None = None
    changed: tuple[str, ...] = ()
    marker: Marker | None = None
    adopt_first: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "cloud": self.cloud,
            "type": self.type_name,
            "ids": list(self.physical_ids),
            "properties": None if self.properties is None else plain_json(dict(self.properties)),
            "changed": list(self.changed),
            "marker": None if self.marker is None else _marker_json(self.marker),
            "adopt_first": self.adopt_first,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CallSpec:
        marker = data.get("marker")
        return cls(
            op=str(data["op"]),
            cloud=str(data["cloud"]),
            type_name=str(data["type"]),
            physical_ids=tuple(data.get("ids") or ()),
            properties=data.get("properties"),
            changed=tuple(data.get("changed") or ()),
            marker=None if marker is None else Marker(**marker),
            adopt_first=bool(data.get("adopt_first")),
        )

    def run_with(self, provider: Provider) -> CallOutcome | ObserveOutcome:
        """Run this call against `provider`; never raises (outcomes are values)."""
        runner = _RUNNERS.get(self.op)
        outcome = None if runner is None else runner(self, provider)
        return Failed(f"malformed call {self.op!r} of {self.type_name}") if outcome is None else outcome


def _create(spec: CallSpec, provider: Provider) -> CallOutcome | None:
    if spec.marker is None:
        return None
    properties = spec.properties or {}
    return call_create(provider, spec.type_name, properties, spec.marker, adopt_first=spec.adopt_first)


def _observe(spec: CallSpec, provider: Provider) -> ObserveOutcome:
    return call_observe(provider, spec.type_name, spec.physical_ids)


def _update(spec: CallSpec, provider: Provider) -> CallOutcome | None:
    if len(spec.physical_ids) != 1:
        return None
    changed = frozenset(spec.changed)
    return call_update(provider, spec.type_name, spec.physical_ids[0], spec.properties or {}, changed)


def _delete(spec: CallSpec, provider: Provider) -> CallOutcome | None:
    if len(spec.physical_ids) != 1:
        return None
    return call_delete(provider, spec.type_name, spec.physical_ids[0])


def _snapshot_delete(spec: CallSpec, provider: Provider) -> CallOutcome | None:
    if len(spec.physical_ids) != 1 or spec.marker is None:
        return None
    return call_snapshot_delete(provider, spec.type_name, spec.physical_ids[0], spec.marker)


def _take_external(spec: CallSpec, provider: Provider) -> CallOutcome | None:
    if len(spec.physical_ids) != 1:
        return None
    return call_take_external(provider, spec.type_name, spec.physical_ids[0])


def _suspend(spec: CallSpec, provider: Provider) -> CallOutcome | None:
    if len(spec.physical_ids) != 1:
        return None
    return call_suspension(provider, spec.type_name, spec.physical_ids[0], suspend=spec.op == "suspend")


def _find(spec: CallSpec, provider: Provider) -> CallOutcome | None:
    return None if spec.marker is None else call_find(provider, spec.type_name, spec.marker)


# What each op runs; None from a runner: the spec lacks what its op needs.
_RUNNERS: dict[str, Callable[[CallSpec, Provider], CallOutcome | ObserveOutcome | None]] = {
    "create": _create,
    "observe": _observe,
    "update": _update,
    "delete": _delete,
    "snapshot_delete": _snapshot_delete,
    "take_external": _take_external,
    "find": _find,
    "suspend": _suspend,
    "resume": _suspend,
}


def run_call(spec: CallSpec, clouds: CloudProviders) -> CallOutcome | ObserveOutcome:
    """Run `spec` against this worker's providers; never raises (outcomes are values)."""
    provider = _provider(spec, clouds)
    if not isinstance(provider, Provider):
        return provider
    return spec.run_with(provider)


def _provider(spec: CallSpec, clouds: CloudProviders) -> Provider | Failed | RetryLater:
    try:
        provider = clouds.for_cloud(spec.cloud).provider_for(spec.type_name)
    except Permanent as error:
        return Failed(str(error))
    except Retryable as error:
        return RetryLater(str(error), error.after)
    if provider is None:
        return Failed(f"no provider serves {spec.type_name} on cloud {spec.cloud!r}")
    return provider


def _marker_json(marker: Marker) -> dict[str, str]:
    return {"stack": marker.stack, "resource": marker.resource, "record_id": marker.record_id}


def _live_json(live: LiveResource) -> dict[str, Any]:
    return {
        "physical_id": live.physical_id,
        "type": live.type,
        "status": live.status.value,
        "properties": plain_json(dict(live.properties)),
        "attributes": plain_json(dict(live.attributes)),
        "marker": None if live.marker is None else _marker_json(live.marker),
        "status_reason": live.status_reason,
        "suspended": live.suspended,
    }


def _live_from_json(data: Mapping[str, Any]) -> LiveResource:
    marker = data.get("marker")
    return LiveResource(
        physical_id=str(data["physical_id"]),
        type=str(data["type"]),
        status=LiveStatus(data["status"]),
        properties=data.get("properties") or {},
        attributes=data.get("attributes") or {},
        marker=None if marker is None else Marker(**marker),
        status_reason=str(data.get("status_reason") or ""),
        suspended=bool(data.get("suspended")),
    )


_OUTCOMES: dict[str, type[Any]] = {
    name: kind
    for name, kind in vars(outcomes).items()
    if isinstance(kind, type) and dataclasses.is_dataclass(kind) and kind.__module__ == outcomes.__name__
}


def _value_json(value: Any) -> Any:
    if isinstance(value, LiveResource):
        return {"live": _live_json(value)}
    if isinstance(value, Mapping):
        return {"live_by_id": {key: _live_json(item) for key, item in value.items()}}
    return value


def outcome_json(outcome: CallOutcome | ObserveOutcome) -> dict[str, Any]:
    """An outcome as plain JSON: its kind and its fields (live resources spelled out)."""
    fields = {field.name: _value_json(getattr(outcome, field.name)) for field in dataclasses.fields(outcome)}
    return {"kind": type(outcome).__name__, "fields": fields}


def outcome_from_json(data: Mapping[str, Any]) -> CallOutcome | ObserveOutcome:
    """The outcome `outcome_json` wrote (an unknown kind is a retryable surprise, not a crash)."""
    kind: Callable[..., Any] | None = _OUTCOMES.get(str(data.get("kind")))
    if kind is None:
        return outcomes.RetryLater(f"unknown call outcome {data.get('kind')!r} from another worker")
    fields: dict[str, Any] = {}
    for name, value in (data.get("fields") or {}).items():
        if isinstance(value, Mapping) and "live" in value:
            fields[name] = _live_from_json(value["live"])
        elif isinstance(value, Mapping) and "live_by_id" in value:
            fields[name] = {key: _live_from_json(item) for key, item in value["live_by_id"].items()}
        else:
            fields[name] = value
    result: CallOutcome | ObserveOutcome = kind(**fields)
    return result
