"""The chaos checker itself catches each kind of violation, so a passing chaos run means something."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from state.store import Store, open_store
from tests.state.chaos_invariants import check_invariants
from tests.state.chaos_worker import CHAOS_SETTINGS, chaos_stack
from timekeeping.testing import SteppedClock

LEASE = CHAOS_SETTINGS.lease_seconds
MARGIN = CHAOS_SETTINGS.safety_margin


@pytest.fixture
def store(sqlite_url: str) -> Iterator[Store]:
    clock = SteppedClock()
    opened = open_store(sqlite_url, clock=clock, settings=CHAOS_SETTINGS, sleeper=clock)
    for shard in range(CHAOS_SETTINGS.shard_count):
        opened.ensure_stack(chaos_stack(shard))
    yield opened
    opened.close()


def _tick(worker: str, began: float, held: list[tuple[int, int]]) -> dict[str, Any]:
    return {
        "kind": "tick",
        "worker": worker,
        "began": began,
        "at": began + 0.01,
        "margin": MARGIN,
        "held": [[shard, epoch, began + LEASE] for shard, epoch in held],
    }


def _check(tmp_path: Path, store: Store, events: list[dict[str, Any]]) -> list[str]:
    log = tmp_path / "events.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in events) + '{"kind": "tick", "trunc')
    return check_invariants([log], store, enqueued=0, facts={}).violations


def test_a_clean_handover_after_expiry_passes(tmp_path: Path, store: Store) -> None:
    events = [_tick("a", 100.0, [(0, 1)]), _tick("b", 100.0 + LEASE, [(0, 2)])]
    assert _check(tmp_path, store, events) == []


def test_a_voluntary_handover_passes_when_the_old_holder_dropped_the_shard_first(
    tmp_path: Path, store: Store
) -> None:
    events = [_tick("a", 100.0, [(0, 1)]), _tick("a", 100.5, []), _tick("b", 100.6, [(0, 2)])]
    assert _check(tmp_path, store, events) == []


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        ([_tick("a", 100.0, [(0, 1)]), _tick("b", 101.0, [(0, 2)])], "could act until"),
        ([_tick("a", 100.0, [(0, 1)]), _tick("b", 100.0 + LEASE, [(0, 1)])], "held by a and b"),
        (
            [
                _tick("a", 100.0, [(0, 1)]),
                _tick("b", 100.0 + LEASE, [(0, 2)]),
                {"kind": "write", "worker": "a", "shard": 0, "epoch": 1, "t_before": 120.0, "ok": True},
            ],
            "accepted after epoch 2 began",
        ),
        (
            [{"kind": "completed", "worker": w, "ids": [7], "not_held": []} for w in ("a", "b")],
            "completed more than once",
        ),
    ],
    ids=["overlapping holders", "one epoch two holders", "stale write accepted", "double completion"],
)
def test_each_violation_is_reported(
    tmp_path: Path, store: Store, events: list[dict[str, Any]], expected: str
) -> None:
    violations = _check(tmp_path, store, events)
    assert any(expected in violation for violation in violations), violations
