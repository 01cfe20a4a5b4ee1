"""A pass's writes for many shards in one transaction, and many stacks' generations recorded at once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from state.fencing import Fence
from state.generation_batches import GenerationAsked
from state.lease_results import Acquired
from state.lease_settings import LeaseSettings
from state.pass_writes import EndedGenerations, ShardWrites
from state.records import RecordWrite
from state.stack_row_batches import StackOutputsWrite, StackStatusWrite
from state.stacks import NewGeneration, StackStatus, UnchangedGeneration
from state.store import Store, open_store
from timekeeping.testing import SteppedClock

SHARDS = 4


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    clock = SteppedClock()
    settings = LeaseSettings(shard_count=SHARDS, lease_seconds=3600)
    opened = open_store(database_url, clock=clock, settings=settings, sleeper=clock)
    yield opened
    opened.close()


def held(store: Store, shard: int, worker: str = "w1") -> Fence:
    lease = store.acquire(worker, shard)
    assert isinstance(lease, Acquired)
    return Fence(shard, lease.epoch)


def stack_on(store: Store, shard: int, prefix: str) -> str:
    """A stack name that hashes to `shard`, its row made."""
    for index in range(1000):
        name = f"{prefix}{index}"
        if store.ensure_stack(name).shard == shard:
            return name
    raise AssertionError(f"no name of {prefix}* on shard {shard}")


def record(stack: str, name: str) -> RecordWrite:
    return RecordWrite(stack, name, "OS::Nova::Server", status="CREATE_IN_PROGRESS", generation=1)


def test_every_shard_s_records_statuses_and_outputs_land_together(store: Store) -> None:
    fences = [held(store, shard) for shard in range(SHARDS)]
    stacks = [stack_on(store, shard, "app/nodes/") for shard in range(SHARDS)]
    writes = [
        ShardWrites(
            fence,
            upserts=[record(stack, "server"), record(stack, "port")],
            statuses=[StackStatusWrite(stack, StackStatus.CONVERGED, ("done",), 1, "c1")],
            outputs=[StackOutputsWrite(stack, {"ip": f"10.0.0.{fence.shard}"})],
        )
        for fence, stack in zip(fences, stacks, strict=True)
    ]

    written = store.write_pass(writes)

    assert written.stale == ()
    for fence, stack in zip(fences, stacks, strict=True):
        ids = written.record_ids[fence.shard]
        names = [(found.id, found.logical_name) for found in store.read_records(stack)]
        assert names == list(zip(ids, ["server", "port"], strict=True))
        row = store.read_stack(stack)
        assert row is not None
        assert (row.status, row.reasons, row.status_generation, row.commit) == (
            StackStatus.CONVERGED,
            ("done",),
            1,
            "c1",
        )
        assert row.outputs == {"ip": f"10.0.0.{fence.shard}"}


def test_a_shard_whose_lease_moved_on_is_left_out_whole_and_the_others_are_written(store: Store) -> None:
    kept, lost = held(store, 0), held(store, 1)
    store.release("w1", 1, lost.epoch)
    held(store, 1, worker="w2")
    on_kept, on_lost = stack_on(store, 0, "a"), stack_on(store, 1, "b")
    writes = [
        ShardWrites(
            fence,
            upserts=[record(stack, "server")],
            statuses=[StackStatusWrite(stack, StackStatus.PROGRESSING)],
            outputs=[StackOutputsWrite(stack, {"x": 1})],
        )
        for fence, stack in ((kept, on_kept), (lost, on_lost))
    ]

    written = store.write_pass(writes)

    assert written.stale == (lost,)
    assert set(written.record_ids) == {0}
    assert [r.logical_name for r in store.read_records(on_kept)] == ["server"]
    assert store.read_records(on_lost) == []
    lost_row = store.read_stack(on_lost)
    assert lost_row is not None and (lost_row.status, lost_row.outputs) == (StackStatus.PENDING, {})


def test_superseded_generations_end_once(store: Store) -> None:
    fence = held(store, 0)
    stack = stack_on(store, 0, "s")
    for digest in ("d1", "d2", "d3"):
        store.record_generation(stack, commit_sha=digest, definition_digest=digest, inputs={})
    ended = EndedGenerations(stack, (1, 2), StackStatus.SUPERSEDED)

    store.write_pass([ShardWrites(fence, ended=[ended])])

    assert store.generation_endings(stack) == {1: StackStatus.SUPERSEDED, 2: StackStatus.SUPERSEDED}


def asked(stack: str, digest: str) -> GenerationAsked:
    return GenerationAsked(stack, "c1", digest, {"resources": 1})


def test_many_stacks_generations_are_recorded_at_once_where_their_digest_changed(store: Store) -> None:
    fence = held(store, 0)
    store.record_generation("app/nodes/0", commit_sha="c0", definition_digest="same", inputs={})
    store.record_generation("app/nodes/1", commit_sha="c0", definition_digest="old", inputs={})

    recorded = store.record_generations(
        [asked("app/nodes/0", "same"), asked("app/nodes/1", "new"), asked("app/nodes/2", "first")],
        fence=fence,
    )

    assert [
        (item.stack.name, type(item.outcome), item.outcome.generation.generation) for item in recorded
    ] == [
        ("app/nodes/0", UnchangedGeneration, 1),
        ("app/nodes/1", NewGeneration, 2),
        ("app/nodes/2", NewGeneration, 1),
    ]
    for item in recorded:
        assert item.stack == store.ensure_stack(item.stack.name)  # the row made, on its shard
        newest = store.newest_generation(item.stack.name)
        assert newest is not None and newest.generation == item.outcome.generation.generation


def test_a_stack_asked_twice_in_one_batch_gets_both_generations_in_order(store: Store) -> None:
    fence = held(store, 0)

    recorded = store.record_generations(
        [asked("s", "one"), asked("t", "one"), asked("s", "two"), asked("s", "two")], fence=fence
    )

    assert [(item.stack.name, item.outcome.generation.generation) for item in recorded] == [
        ("s", 1),
        ("t", 1),
        ("s", 2),
        ("s", 2),
    ]
    assert isinstance(recorded[3].outcome, UnchangedGeneration)


def test_generations_asked_under_a_stale_fence_record_nothing(store: Store) -> None:
    fence = held(store, 0)
    store.release("w1", 0, fence.epoch)

    with pytest.raises(Exception, match="no longer current"):
        store.record_generations([asked("app/nodes/0", "d")], fence=fence)

    assert store.newest_generation("app/nodes/0") is None
