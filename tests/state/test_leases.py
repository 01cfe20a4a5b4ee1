"""The lease protocol on a stepped clock: expiry, takeover, epochs, renewal, release; on both databases."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from state.lease_results import Acquired, HeldBy, Lost, Released
from state.lease_settings import LeaseSettings
from state.store import Store, open_store
from timekeeping.testing import SteppedClock

LEASE = 15.0


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
def store(database_url: str, clock: SteppedClock) -> Iterator[Store]:
    opened = open_store(database_url, clock=clock, settings=LeaseSettings(shard_count=4), sleeper=clock)
    yield opened
    opened.close()


def test_a_held_shard_is_refused_until_its_lease_expires_then_taken_at_a_new_epoch(
    store: Store, clock: SteppedClock
) -> None:
    first = store.acquire("w1", 0)
    assert first == Acquired(0, 1, clock.now() + LEASE)

    clock.advance(LEASE - 0.001)
    assert store.acquire("w2", 0) == HeldBy(0, "w1", first.until)

    clock.advance(0.001)
    assert store.acquire("w2", 0) == Acquired(0, 2, clock.now() + LEASE)
    assert store.renew("w1", 0, 1) == Lost(0)


def test_renewing_keeps_the_epoch_and_pushes_the_expiry(store: Store, clock: SteppedClock) -> None:
    store.acquire("w1", 0)
    clock.advance(10)
    assert store.renew("w1", 0, 1) == Acquired(0, 1, clock.now() + LEASE)
    clock.advance(10)  # 20 s after acquiring, 10 s after renewing
    assert isinstance(store.acquire("w2", 0), HeldBy)


def test_an_expired_lease_cannot_be_renewed_even_when_nobody_took_it(
    store: Store, clock: SteppedClock
) -> None:
    store.acquire("w1", 0)
    clock.advance(LEASE)
    assert store.renew("w1", 0, 1) == Lost(0)
    assert store.renew_all("w1") == []
    assert store.acquire("w1", 0) == Acquired(0, 2, clock.now() + LEASE)


def test_epochs_strictly_increase_across_takeovers(store: Store, clock: SteppedClock) -> None:
    epochs = []
    for worker in ["w1", "w2", "w3", "w1", "w2"]:
        result = store.acquire(worker, 2)
        assert isinstance(result, Acquired)
        epochs.append(result.epoch)
        clock.advance(LEASE)
    assert epochs == [1, 2, 3, 4, 5]


def test_acquiring_a_shard_already_held_renews_it_at_the_same_epoch(
    store: Store, clock: SteppedClock
) -> None:
    store.acquire("w1", 1)
    clock.advance(5)
    assert store.acquire("w1", 1) == Acquired(1, 1, clock.now() + LEASE)


@pytest.mark.parametrize(
    ("releaser", "epoch", "expected"),
    [("w1", 1, Released(3)), ("w2", 1, Lost(3)), ("w1", 7, Lost(3))],
    ids=["holder", "another worker", "stale epoch"],
)
def test_only_the_holder_at_the_current_epoch_can_release(
    store: Store, releaser: str, epoch: int, expected: Released | Lost
) -> None:
    store.acquire("w1", 3)
    assert store.release(releaser, 3, epoch) == expected


def test_a_released_shard_is_free_at_once_for_another_worker(store: Store, clock: SteppedClock) -> None:
    store.acquire("w1", 3)
    store.release("w1", 3, 1)
    assert store.acquire("w2", 3) == Acquired(3, 2, clock.now() + LEASE)
    assert store.renew("w1", 3, 1) == Lost(3)


def test_shards_held_lists_only_unexpired_leases(store: Store, clock: SteppedClock) -> None:
    store.acquire("w1", 0)
    clock.advance(10)
    store.acquire("w1", 1)
    assert [(held.shard, held.epoch) for held in store.shards_held("w1")] == [(0, 1), (1, 1)]
    clock.advance(5)
    assert [held.shard for held in store.shards_held("w1")] == [1]


def test_the_lease_table_shows_holders_epochs_and_expiry(store: Store, clock: SteppedClock) -> None:
    store.acquire("w1", 0)
    table = store.lease_table()
    assert [(row.shard, row.owner, row.epoch, row.expired) for row in table] == [
        (0, "w1", 1, False),
        (1, None, 0, True),
        (2, None, 0, True),
        (3, None, 0, True),
    ]
    clock.advance(LEASE)
    assert store.lease_table()[0].expired
