"""Drift: how the live state of a READY resource differs from what was recorded."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from providers.interface import LiveResource, LiveStatus
from reconciler.engine.record_rows import plain_json
from reconciler.engine.resource_state import ResourceState

# Where a record keeps the cloud's account of its properties at apply time, beside its attributes.
BASELINE = "_observed_properties"


class Drift(enum.Enum):
    IN_SYNC = "in sync"
    MISSING = "missing"  # deleted behind the engine's back: recreate
    FAILED = "failed"  # ERROR in the cloud: replace
    CHANGED = "changed"  # a property changed out of band: put it back


def drifted_properties(applied: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """The applied properties the cloud reports with another value (names it does not report are skipped)."""
    return {name: live[name] for name in applied.keys() & live.keys() if applied[name] != live[name]}


def baseline_of(state: ResourceState) -> Mapping[str, Any] | None:
    """The live properties the cloud reported when the resource was last applied (None: unknown)."""
    baseline = state.attributes.get(BASELINE)
    return baseline if isinstance(baseline, Mapping) else None


def remember_baseline(state: ResourceState, live: LiveResource) -> None:
    """Keep what the cloud says now as the reference later observations are compared with.

    The attributes are replaced, not changed in place (their written JSON is kept by identity);
    when the cloud says what it said last time, they stay as they are.
    """
    if live.properties and state.attributes.get(BASELINE) != live.properties:
        state.attributes = {**state.attributes, BASELINE: plain_json(live.properties)}


def detect_drift(state: ResourceState, live: LiveResource | None) -> Drift:
    """Missing, FAILED, or changed against the cloud's own account at apply time (so a name given
    and an id reported back never look like drift)."""
    if live is None:
        return Drift.MISSING
    if live.status is LiveStatus.FAILED:
        return Drift.FAILED
    if managed_drift(state, live):
        return Drift.CHANGED
    return Drift.IN_SYNC


def managed_drift(state: ResourceState, live: LiveResource) -> dict[str, Any]:
    """Properties the template sets whose live value moved away from the baseline: name -> live value."""
    baseline = baseline_of(state)
    if baseline is None:
        return {}
    moved = drifted_properties(baseline, live.properties)
    return {name: value for name, value in moved.items() if name in state.properties}
