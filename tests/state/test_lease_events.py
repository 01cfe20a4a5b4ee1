"""The journal says who took, lost or handed back which shard: one line each, so a hang is visible."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from state.lease_settings import LeaseSettings
from state.shard_keeper import ShardKeeper
from state.store import Store, open_store
from state.workers import WorkerIdentity
from timekeeping.testing import SteppedClock

SETTINGS = LeaseSettings(shard_count=4, lease_seconds=15, renew_seconds=5, safety_margin=1)


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
def store(database_url: str, clock: SteppedClock) -> Iterator[Store]:
    opened = open_store(database_url, clock=clock, settings=SETTINGS, sleeper=clock)
    yield opened
    opened.close()


def _keeper(store: Store, clock: SteppedClock, name: str, busy: set[int] | None = None) -> ShardKeeper:
    calls_out = set() if busy is None else busy
    return ShardKeeper(store, WorkerIdentity(name, "host", 1), clock=clock, busy=lambda: frozenset(calls_out))


def _lines(caplog: pytest.LogCaptureFixture, start: str) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.getMessage().startswith(start)]


def test_a_takeover_and_the_lease_it_cost_the_stopped_worker_are_logged(
    store: Store, clock: SteppedClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    stopped, survivor = _keeper(store, clock, "stopped"), _keeper(store, clock, "survivor")
    stopped.tick()
    assert _lines(caplog, "shard acquired: worker stopped holds shard") != []

    clock.advance(SETTINGS.lease_seconds + 1)  # stopped: it renews nothing meanwhile
    survivor.tick()
    stopped.tick()

    assert _lines(caplog, "takeover:") == [
        f"takeover: worker survivor took shard {shard} over from worker stopped (its lease expired), epoch 2"
        for shard in range(4)
    ]
    assert len(_lines(caplog, "lease lost: worker stopped no longer holds shard")) == 4


def test_a_hand_over_to_a_joining_worker_is_logged_and_so_is_one_waiting_for_calls_out(
    store: Store, clock: SteppedClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    calls_out = {0, 1, 2, 3}
    first = _keeper(store, clock, "first", busy=calls_out)
    first.tick()
    joined = _keeper(store, clock, "joined")
    joined.tick()
    clock.advance(SETTINGS.renew_seconds)
    first.tick()

    assert len(_lines(caplog, "hand-over deferred: worker first keeps shard")) == 2
    calls_out.clear()  # its calls are back
    clock.advance(SETTINGS.renew_seconds)
    first.tick()
    assert len(_lines(caplog, "hand-over: worker first handed shard")) == 2
    assert _lines(caplog, "lease lost") == []
