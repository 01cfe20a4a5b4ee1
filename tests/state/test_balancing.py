"""Fair-share balancing: the split (table-driven), and workers joining and leaving on a stepped clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from state.balancing import fair_share, surplus_to_release
from state.lease_settings import LeaseSettings
from state.store import Store, open_store
from state.workers import WorkerIdentity
from timekeeping.testing import SteppedClock

RENEW = 5.0
LEASE = 15.0


@pytest.mark.parametrize(
    ("worker", "live", "shards", "share"),
    [
        ("a", ["a"], 64, 64),
        ("a", ["a", "b"], 64, 32),
        ("a", ["a", "b", "c"], 64, 22),
        ("b", ["a", "b", "c"], 64, 21),
        ("c", ["c", "b", "a"], 64, 21),
        ("a", [], 8, 8),  # a worker not yet seen counts itself
        ("z", ["a", "b", "c", "d", "e"], 4, 0),  # more workers than shards
    ],
)
def test_fair_share(worker: str, live: list[str], shards: int, share: int) -> None:
    assert fair_share(worker, live, shards) == share


def test_fair_shares_add_up_to_every_shard() -> None:
    for count in range(1, 12):
        workers = [f"w{n}" for n in range(count)]
        assert sum(fair_share(worker, workers, 64) for worker in workers) == 64


@pytest.mark.parametrize(
    ("held", "share", "released"),
    [([0, 1, 2, 3], 2, [2, 3]), ([5, 1], 2, []), ([9, 4, 7], 0, [4, 7, 9])],
)
def test_surplus_is_the_highest_numbered_shards(held: list[int], share: int, released: list[int]) -> None:
    assert surplus_to_release(held, share) == released


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
def store(database_url: str, clock: SteppedClock) -> Iterator[Store]:
    settings = LeaseSettings(shard_count=8, lease_seconds=LEASE, renew_seconds=RENEW)
    opened = open_store(database_url, clock=clock, settings=settings, sleeper=clock)
    yield opened
    opened.close()


def _worker(name: str) -> WorkerIdentity:
    return WorkerIdentity(id=name, host="host-" + name, pid=100)


def _held(store: Store, name: str) -> set[int]:
    return {held.shard for held in store.shards_held(name)}


def test_a_lone_worker_takes_every_shard(store: Store) -> None:
    outcome = store.balance(_worker("a"))
    assert outcome.share == 8
    assert [lease.shard for lease in outcome.held] == list(range(8))


def test_a_joining_worker_gets_its_share_within_two_renew_periods(store: Store, clock: SteppedClock) -> None:
    a, b = _worker("a"), _worker("b")
    store.balance(a)
    joined_at = clock.now()

    store.balance(b)  # b registers; a still holds everything
    assert _held(store, "b") == set()
    for _ in range(2):
        clock.advance(RENEW)
        store.balance(a)
        store.balance(b)

    assert clock.now() - joined_at <= 2 * RENEW
    assert (len(_held(store, "a")), len(_held(store, "b"))) == (4, 4)
    assert _held(store, "a").isdisjoint(_held(store, "b"))


def test_three_workers_split_eight_shards_three_three_two(store: Store, clock: SteppedClock) -> None:
    workers = [_worker(name) for name in "abc"]
    for _ in range(3):
        for worker in workers:
            store.balance(worker)
        clock.advance(RENEW)
    assert sorted(len(_held(store, w.id)) for w in workers) == [2, 3, 3]


def test_a_leaving_worker_s_shards_go_to_the_others_once_its_leases_expire(
    store: Store, clock: SteppedClock
) -> None:
    a, b = _worker("a"), _worker("b")
    for _ in range(3):
        store.balance(a)
        store.balance(b)
        clock.advance(RENEW)
    b_epochs = {held.shard: held.epoch for held in store.shards_held("b")}
    assert len(b_epochs) == 4

    # b dies: from now on only a balances, once per renew period.
    periods_until_taken = 0
    while _held(store, "a") != set(range(8)):
        store.balance(a)
        clock.advance(RENEW)
        periods_until_taken += 1
    reaped = store.reap_dead_workers()

    assert periods_until_taken * RENEW <= LEASE + RENEW
    assert reaped.workers == ("b",)
    for held in store.shards_held("a"):
        if held.shard in b_epochs:
            assert held.epoch == b_epochs[held.shard] + 1


def test_a_clean_shutdown_hands_shards_back_at_once(store: Store, clock: SteppedClock) -> None:
    a, b = _worker("a"), _worker("b")
    store.balance(a)
    store.balance(b)
    store.leave("a")
    assert len(store.balance(b).held) == 8
