"""The Store API the engine codes against, on SQLite and on the real PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from state.errors import StaleLease
from state.fencing import Fence
from state.lease_results import Acquired, HeldBy
from state.lease_settings import LeaseSettings
from state.outbox import NoteLine
from state.records import RecordWrite
from state.stacks import NewerGeneration, NewGeneration, StackStatus, UnchangedGeneration
from state.store import Purged, Store, open_store
from state.work_queue import NewWorkItem, RetryRequest
from timekeeping.testing import SteppedClock


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
def store(database_url: str, clock: SteppedClock) -> Iterator[Store]:
    opened = open_store(database_url, clock=clock, settings=LeaseSettings(shard_count=8), sleeper=clock)
    yield opened
    opened.close()


def _fence(store: Store, worker: str, shard: int) -> Fence:
    result = store.acquire(worker, shard)
    assert isinstance(result, Acquired)
    return Fence(shard, result.epoch)


def test_generations_are_recorded_only_when_the_digest_changes(store: Store) -> None:
    first = store.record_generation(
        "app", commit_sha="a" * 40, definition_digest="d1", inputs={"cidr": "10.0.0.0/24"}
    )
    same = store.record_generation("app", commit_sha="b" * 40, definition_digest="d1", inputs={})
    second = store.record_generation("app", commit_sha="c" * 40, definition_digest="d2", inputs={})

    assert isinstance(first, NewGeneration) and first.generation.generation == 1
    assert isinstance(same, UnchangedGeneration) and same.generation.commit_sha == "a" * 40
    assert isinstance(second, NewGeneration) and second.generation.generation == 2
    newest = store.newest_generation("app")
    assert newest is not None and newest.commit_sha == "c" * 40
    assert store.newest_generation("unknown") is None


def test_status_and_outputs_round_trip_under_a_current_fence(store: Store) -> None:
    ref = store.ensure_stack("app")
    fence = _fence(store, "w1", ref.shard)

    store.set_status("app", StackStatus.FAILED, reasons=["quota exceeded"], generation=3, fence=fence)
    store.store_outputs("app", {"net_id": "n-1", "ips": ["10.0.0.5"]}, fence=fence)

    state = store.read_stack("app")
    assert state is not None
    assert (state.status, state.reasons, state.status_generation) == (
        StackStatus.FAILED,
        ("quota exceeded",),
        3,
    )
    assert store.read_outputs("app") == {"net_id": "n-1", "ips": ["10.0.0.5"]}


def test_records_are_inserted_updated_and_deleted_in_one_fenced_batch(store: Store) -> None:
    ref = store.ensure_stack("app")
    fence = _fence(store, "w1", ref.shard)
    written = store.write_records(
        fence,
        [
            RecordWrite("app", "net", "OS::Neutron::Net", "CREATE_PENDING", 1),
            RecordWrite("app", "port", "OS::Neutron::Port", "CREATE_PENDING", 1, properties={"name": "p"}),
        ],
    )
    net_id, port_id = written.record_ids

    store.write_records(
        fence,
        [RecordWrite("app", "net", "OS::Neutron::Net", "CREATED", 1, physical_id="uuid-1", record_id=net_id)],
        deletes=[port_id],
    )

    (net,) = store.read_records("app")
    assert (net.id, net.physical_id, net.status) == (net_id, "uuid-1", "CREATED")


def test_a_stale_epoch_writes_nothing(store: Store, clock: SteppedClock) -> None:
    ref = store.ensure_stack("app")
    stale = _fence(store, "w1", ref.shard)
    clock.advance(store.settings.lease_seconds)
    current = _fence(store, "w2", ref.shard)

    with pytest.raises(StaleLease):
        store.write_records(stale, [RecordWrite("app", "net", "OS::Neutron::Net", "CREATED", 1)])
    with pytest.raises(StaleLease):
        store.set_status("app", StackStatus.CONVERGED, fence=stale)

    assert current.epoch == stale.epoch + 1
    assert store.read_records("app") == []
    state = store.read_stack("app")
    assert state is not None and state.status is StackStatus.PENDING


def test_a_second_worker_is_told_who_holds_a_shard(store: Store) -> None:
    _fence(store, "w1", 3)
    assert store.acquire("w2", 3) == HeldBy(3, "w1", store.settings.lease_seconds + SteppedClock().now())


def test_work_items_are_claimed_completed_and_retried_in_batches(store: Store, clock: SteppedClock) -> None:
    ids = store.enqueue_work([NewWorkItem(0, "app", "create", {"n": n}) for n in range(5)])

    first = store.claim_work("w1", 3)
    second = store.claim_work("w2", 3)
    assert [item.id for item in first] == ids[:3]
    assert [item.id for item in second] == ids[3:]

    done = store.complete_work("w1", ids[:2])
    assert done.settled == tuple(ids[:2])
    assert store.complete_work("w1", [ids[3]]).not_held == (ids[3],)  # w2's item

    store.retry_work("w1", [RetryRequest(ids[2], delay=30, error="HTTP 503")])
    assert store.claim_work("w1", 10) == []
    clock.advance(30)
    (again,) = store.claim_work("w1", 10)
    assert (again.id, again.attempts) == (ids[2], 2)


def test_notes_outbox_lists_pending_lines_until_sent(store: Store) -> None:
    ids = store.enqueue_notes([NoteLine("c" * 40, "refs/notes/reconciler", "app", '{"status":"CONVERGED"}')])
    assert [note.id for note in store.pending_notes()] == ids
    assert store.mark_notes_sent(ids) == 1
    assert store.pending_notes() == []


def test_retries_settle_only_items_still_held_each_with_its_own_delay(
    store: Store, clock: SteppedClock
) -> None:
    first, second, third = store.enqueue_work([NewWorkItem(0, "app", "create") for _ in range(3)])
    store.claim_work("w1", 2)
    store.claim_work("w2", 1)

    outcome = store.retry_work(
        "w1",
        [
            RetryRequest(first, delay=10, error="429"),
            RetryRequest(second, delay=20, error="503"),
            RetryRequest(third, 5, ""),
        ],
    )

    assert (outcome.settled, outcome.not_held) == ((first, second), (third,))
    clock.advance(10)
    assert [item.id for item in store.claim_work("w1", 10)] == [first]
    clock.advance(10)
    assert [item.id for item in store.claim_work("w1", 10)] == [second]


def test_purging_removes_only_long_finished_work_and_long_sent_notes(
    store: Store, clock: SteppedClock
) -> None:
    done, failed, _still_claimed = store.enqueue_work([NewWorkItem(0, "app", "create") for _ in range(3)])
    store.claim_work("w1", 3)
    store.complete_work("w1", [done])
    store.fail_work("w1", [failed], "quota exceeded")
    (note,) = store.enqueue_notes([NoteLine("c" * 40, "refs/notes/reconciler", "app", "{}")])
    store.mark_notes_sent([note])

    assert store.purge_finished(older_than=60) == Purged(work_items=0, notes=0)
    clock.advance(61)
    assert store.purge_finished(older_than=60) == Purged(work_items=2, notes=1)
    assert store.work_counts().by_status == {"claimed": 1}


def test_acquiring_a_shard_that_does_not_exist_is_refused_clearly(store: Store) -> None:
    with pytest.raises(ValueError, match="shard 8 does not exist: shards are 0 to 7"):
        store.acquire("w1", 8)


def test_a_generation_is_recorded_under_a_current_fence_and_refused_under_a_stale_one(
    store: Store, clock: SteppedClock
) -> None:
    ref = store.ensure_stack("app")
    stale = _fence(store, "w1", ref.shard)
    recorded = store.record_generation(
        "app", commit_sha="a" * 40, definition_digest="d1", inputs={}, fence=stale
    )
    clock.advance(store.settings.lease_seconds + 1)
    current = _fence(store, "w2", ref.shard)

    with pytest.raises(StaleLease):
        store.record_generation("app", commit_sha="b" * 40, definition_digest="d2", inputs={}, fence=stale)
    with pytest.raises(StaleLease):
        store.record_generation(
            "app/web/0", commit_sha="b" * 40, definition_digest="d2", inputs={}, fence=stale
        )

    newest = store.newest_generation("app")
    assert isinstance(recorded, NewGeneration) and newest == recorded.generation
    assert store.read_stack("app/web/0") is None
    after = store.record_generation(
        "app", commit_sha="c" * 40, definition_digest="d3", inputs={}, fence=current
    )
    assert isinstance(after, NewGeneration) and after.generation.generation == 2


def test_a_generation_decided_from_an_older_one_is_not_recorded_after_a_newer(store: Store) -> None:
    first = store.record_generation("app/web/0", commit_sha="a" * 40, definition_digest="d1", inputs={})
    store.record_generation("app/web/0", commit_sha="b" * 40, definition_digest="d2", inputs={})

    late = store.record_generation(
        "app/web/0",
        commit_sha="a" * 40,
        definition_digest="removed",
        inputs={},
        after=first.generation.generation,
    )

    newest = store.newest_generation("app/web/0")
    assert isinstance(late, NewerGeneration) and late.generation == newest
    assert newest is not None and (newest.generation, newest.definition_digest) == (2, "d2")


def test_the_records_of_a_stacks_nested_stacks_are_read_in_one_go_by_stack(store: Store) -> None:
    """A name's `_` is no wildcard: `a_b`'s nested stacks are not `axb`'s."""
    names = ["a_b", "a_b/nodes", "a_b/nodes/0", "axb/nodes"]
    fences = {}
    for stack in names:
        shard = store.ensure_stack(stack).shard
        if shard not in fences:
            fences[shard] = _fence(store, "w1", shard)
        store.write_records(fences[shard], [RecordWrite(stack, "member", "OS::Heat::None", "CREATED", 1)])

    under = store.read_records_under("a_b")
    compared = store.read_compared_records_under("a_b")

    assert sorted(under) == sorted(compared) == ["a_b/nodes", "a_b/nodes/0"]
    assert [record.logical_name for record in under["a_b/nodes/0"]] == ["member"]
    assert [record.logical_name for record in compared["a_b/nodes/0"]] == ["member"]


def test_the_newest_digest_of_each_nested_stack_is_read_in_one_go(store: Store) -> None:
    given = [("a_b/nodes", "d1"), ("a_b/nodes", "d2"), ("a_b/nodes/0", "m1"), ("axb/nodes", "x")]
    for stack, digest in given:
        store.record_generation(stack, commit_sha="c" * 40, definition_digest=digest, inputs={})

    assert store.newest_digests_under("a_b") == {"a_b/nodes": "d2", "a_b/nodes/0": "m1"}
