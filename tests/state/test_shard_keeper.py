"""The shard keeper on a stepped clock: what a worker may act on, and when it should tick next."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from state.fencing import Fence
from state.lease_settings import LeaseSettings
from state.shard_keeper import Kept, NotHeld, ShardKeeper
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


def _keeper(store: Store, clock: SteppedClock, name: str) -> ShardKeeper:
    return ShardKeeper(store, WorkerIdentity(name, "host", 1), clock=clock)


def test_a_worker_acts_on_its_shards_until_the_safety_margin_before_expiry(
    store: Store, clock: SteppedClock
) -> None:
    keeper = _keeper(store, clock, "a")
    assert isinstance(keeper.tick(), Kept)
    assert keeper.fence_for(2) == Fence(2, 1)

    clock.advance(SETTINGS.lease_seconds - SETTINGS.safety_margin - 0.001)
    assert sorted(keeper.fences()) == [0, 1, 2, 3]
    clock.advance(0.001)
    assert keeper.fences() == {}
    assert keeper.fence_for(2) == NotHeld(2)


def test_ticking_every_renew_period_keeps_the_shards_at_the_same_epoch(
    store: Store, clock: SteppedClock
) -> None:
    keeper = _keeper(store, clock, "a")
    for _ in range(10):
        keeper.tick()
        clock.sleep(keeper.next_tick_at() - clock.now())
    assert keeper.fences() == {shard: Fence(shard, 1) for shard in range(4)}


def test_a_survivor_ticks_when_a_dead_holder_s_leases_expire_and_takes_them(
    store: Store, clock: SteppedClock
) -> None:
    a, b = _keeper(store, clock, "a"), _keeper(store, clock, "b")
    for _ in range(3):
        a.tick()
        b.tick()
        clock.advance(SETTINGS.renew_seconds)
    a.tick()
    b.tick()
    b_expires = clock.now() + SETTINGS.lease_seconds  # b dies right after this tick

    while clock.now() < b_expires:
        assert a.next_tick_at() <= b_expires
        clock.sleep(a.next_tick_at() - clock.now())
        a.tick()

    assert clock.now() == b_expires
    assert sorted(a.fences()) == [0, 1, 2, 3]


def test_stopping_hands_every_shard_back_and_stops_acting_at_once(store: Store, clock: SteppedClock) -> None:
    a, b = _keeper(store, clock, "a"), _keeper(store, clock, "b")
    a.tick()
    assert a.stop() == (0, 1, 2, 3)
    assert a.fences() == {}
    b.tick()
    assert sorted(b.fences()) == [0, 1, 2, 3]


def test_a_shard_to_hand_back_with_calls_out_drains_before_another_worker_takes_it(
    store: Store, clock: SteppedClock
) -> None:
    """A worker over its share (another joined) stops acting on a surplus shard at once, but keeps
    its lease while its calls are out: the joiner takes that shard only once they are back."""
    calls_out: set[int] = set()
    first = ShardKeeper(store, WorkerIdentity("a", "host", 1), clock=clock, busy=lambda: calls_out)
    first.tick()
    second = _keeper(store, clock, "b")
    second.tick()  # b is seen alive; a is now over its share of 2
    calls_out.add(3)  # a create on shard 3 was sent and has not come back

    first.tick()
    second.tick()

    assert sorted(first.fences()) == [0, 1] and first.draining() == (3,)
    assert sorted(second.fences()) == [2]
    calls_out.clear()
    clock.advance(SETTINGS.renew_seconds)
    first.tick()
    second.tick()
    assert sorted(first.fences()) == [0, 1] and first.draining() == ()
    assert sorted(second.fences()) == [2, 3]
