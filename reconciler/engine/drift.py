"""Drift: how the live state of a READY resource differs from what was recorded."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from providers.interface import LiveResource, LiveStatus
from reconciler.engine.resource_state import ResourceState


class Drift(enum.Enum):
    IN_SYNC = "in sync"
    MISSING = "missing"  # deleted behind the engine's back: recreate
    FAILED = "failed"  # ERROR in the cloud: replace
    CHANGED = "changed"  # a property changed out of band: put it back


def drifted_properties(applied: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """The applied properties the cloud reports with another value (names it does not report are skipped)."""
    return {name: live[name] for name in applied.keys() & live.keys() if applied[name] != live[name]}


def detect_drift(state: ResourceState, live: LiveResource | None) -> Drift:
    if live is None:
        return Drift.MISSING
    if live.status is LiveStatus.FAILED:
        return Drift.FAILED
    if drifted_properties(state.properties, live.properties):
        return Drift.CHANGED
    return Drift.IN_SYNC
