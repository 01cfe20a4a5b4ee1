"""The engine's small policies, as tables: backoff delays, drift kinds, the status a pass reports."""

from __future__ import annotations

import random

import pytest

from providers.interface import LiveResource, LiveStatus
from reconciler.engine import Backoff
from reconciler.engine.drift import BASELINE, Drift, detect_drift
from reconciler.engine.resource_state import RecordStatus, ResourceState
from reconciler.engine.stack_status import StackStatus, summarize_status


class NoJitter(random.Random):
    def random(self) -> float:
        return 0.0


@pytest.mark.parametrize(
    ("attempt", "requested", "expected"),
    [(1, None, 1.0), (2, None, 2.0), (5, None, 16.0), (20, None, 300.0), (3, 7.5, 7.5), (3, 0.0, 0.0)],
)
def test_backoff_doubles_up_to_the_cap_and_honours_retry_after(
    attempt: int, requested: float | None, expected: float
) -> None:
    assert Backoff().delay(attempt, requested, NoJitter()) == expected


def test_jitter_takes_off_at_most_half() -> None:
    delays = [Backoff().delay(4, None, random.Random(seed)) for seed in range(200)]
    assert min(delays) >= 4.0 and max(delays) <= 8.0 and len(set(delays)) > 100


STATE = ResourceState(
    "s",
    "OS::Nova::Server",
    RecordStatus.READY,
    1,
    physical_id="p",
    properties={"name": "a", "image": "cirros"},
    attributes={BASELINE: {"name": "a", "image": "id-of-cirros", "status": "ACTIVE"}},
)


@pytest.mark.parametrize(
    ("live", "drift"),
    [
        (None, Drift.MISSING),
        (LiveResource("p", "T", LiveStatus.FAILED), Drift.FAILED),
        (LiveResource("p", "T", LiveStatus.READY, {"name": "b", "image": "id-of-cirros"}), Drift.CHANGED),
        (LiveResource("p", "T", LiveStatus.READY, {"name": "a", "image": "id-of-cirros"}), Drift.IN_SYNC),
        (LiveResource("p", "T", LiveStatus.READY, {"name": "a", "status": "SHUTOFF"}), Drift.IN_SYNC),
        (LiveResource("p", "T", LiveStatus.READY, {}), Drift.IN_SYNC),
    ],
)
def test_drift_kinds(live: LiveResource | None, drift: Drift) -> None:
    assert detect_drift(STATE, live) is drift


@pytest.mark.parametrize(
    ("complete", "waiting", "failed", "drifted", "status"),
    [
        (False, True, False, False, StackStatus.PROGRESSING),
        (False, True, False, True, StackStatus.DEGRADED),
        (False, True, True, False, StackStatus.PROGRESSING),
        (True, False, False, False, StackStatus.CONVERGED),
        (True, False, True, False, StackStatus.FAILED),
        (False, False, True, False, StackStatus.FAILED),
        (False, False, False, False, StackStatus.FAILED),
    ],
)
def test_status_of_a_pass(
    complete: bool, waiting: bool, failed: bool, drifted: bool, status: StackStatus
) -> None:
    assert summarize_status(complete=complete, waiting=waiting, failed=failed, drifted=drifted) is status
