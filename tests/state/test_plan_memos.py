"""Plan memos: kept at the stamp a stack's records are at, and read back only while every write of
those records (upsert, delete, abandonment) has left the stamp as it was."""

from __future__ import annotations

import pytest

from state.fencing import Fence
from state.lease_results import Acquired
from state.records import RecordWrite
from state.store import Store


@pytest.fixture
def store(one_shard_store: Store) -> Store:
    return one_shard_store


@pytest.fixture
def fence(store: Store) -> Fence:
    store.ensure_stack("app")
    store.ensure_stack("other")
    lease = store.acquire("w1", 0)
    assert isinstance(lease, Acquired)
    return Fence(0, lease.epoch)


def _write(stack: str, name: str, record_id: int | None = None) -> RecordWrite:
    return RecordWrite(stack, name, "OS::Nova::Server", record_id=record_id, status="CREATED", generation=1)


def _kept(store: Store, stack: str = "app") -> str:
    """Keep a memo at the stack's current stamp; the stamp."""
    stamp = store.plan_memos().read(stack).stamp
    assert stamp is not None
    store.plan_memos().keep(stack, stamp, b"memo of " + stamp.encode())
    return stamp


def test_a_stack_whose_records_were_never_written_has_no_stamp_and_no_memo(
    store: Store, fence: Fence
) -> None:
    memo = store.plan_memos().read("app")
    assert memo.stamp is None and memo.content is None
    assert store.plan_memos().read("no-such-stack").stamp is None


def test_a_memo_kept_at_the_current_stamp_reads_back(store: Store, fence: Fence) -> None:
    store.write_records(fence, [_write("app", "a"), _write("app", "b")], [])
    stamp = _kept(store)
    assert store.plan_memos().read("app").content == b"memo of " + stamp.encode()


def test_every_kind_of_record_write_retires_the_memo(store: Store, fence: Fence) -> None:
    written = store.write_records(fence, [_write("app", "a"), _write("app", "b")], [])
    first, second = written.record_ids

    _kept(store)
    store.write_records(fence, [_write("app", "a", first)], [])  # an update in place
    assert store.plan_memos().read("app").content is None

    _kept(store)
    store.write_records(fence, [], [second])  # a deletion alone
    assert store.plan_memos().read("app").content is None

    _kept(store)
    store.abandon("app", "handed over")
    assert store.plan_memos().read("app").content is None


def test_another_stack_s_writes_leave_the_memo_standing(store: Store, fence: Fence) -> None:
    store.write_records(fence, [_write("app", "a")], [])
    stamp = _kept(store)
    written = store.write_records(fence, [_write("other", "x")], [])
    store.write_records(fence, [], list(written.record_ids))
    assert store.plan_memos().read("app").content == b"memo of " + stamp.encode()


def test_a_memo_made_before_the_records_moved_on_is_not_kept(store: Store, fence: Fence) -> None:
    store.write_records(fence, [_write("app", "a")], [])
    stale = store.plan_memos().read("app").stamp
    assert stale is not None
    store.write_records(fence, [_write("app", "b")], [])
    store.plan_memos().keep("app", stale, b"made over the old records")
    memo = store.plan_memos().read("app")
    assert memo.stamp != stale and memo.content is None


def test_a_write_its_writer_says_keeps_every_field_a_plan_relies_on_leaves_the_memo(
    store: Store, fence: Fence
) -> None:
    written = store.write_records(fence, [_write("app", "a")], [])
    stamp = _kept(store)
    observed = _write("app", "a", written.record_ids[0])
    observed.attributes = {"status": "ACTIVE"}
    observed.plan_fields_kept = True  # new attributes only
    store.write_records(fence, [observed], [])
    assert store.plan_memos().read("app").content == b"memo of " + stamp.encode()
