"""Retry requests and the stacks holding records, on SQLite and on the real PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from state.fencing import Fence
from state.lease_settings import LeaseSettings
from state.records import RecordWrite
from state.sharding import shard_for
from state.store import Store, open_store
from timekeeping.testing import SteppedClock

SHARDS = 8


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    clock = SteppedClock()
    opened = open_store(database_url, clock=clock, settings=LeaseSettings(shard_count=SHARDS), sleeper=clock)
    yield opened
    opened.close()


def test_a_retry_request_waits_on_its_stack_s_shard_until_forgotten(store: Store) -> None:
    first = store.request_retry("app")
    second = store.request_retry("app/nodes", "1")
    app_shard, nodes_shard = shard_for("app", SHARDS), shard_for("app/nodes", SHARDS)

    waiting = store.requested_retries(range(SHARDS))
    on_app_shard = store.requested_retries([app_shard])

    assert [(r.id, r.stack, r.resource) for r in waiting] == [
        (first, "app", None),
        (second, "app/nodes", "1"),
    ]
    assert [r.stack for r in on_app_shard] == ["app"] + (["app/nodes"] if nodes_shard == app_shard else [])
    store.forget_retries([first, second])
    assert store.requested_retries(range(SHARDS)) == []


def test_the_top_level_stacks_holding_records_are_listed_by_shard(store: Store) -> None:
    for stack in ("app", "app/nodes", "empty"):
        ref = store.ensure_stack(stack)
        store.acquire("w1", ref.shard)
        epoch = {held.shard: held.epoch for held in store.shards_held("w1")}[ref.shard]
        if stack != "empty":
            store.write_records(
                Fence(ref.shard, epoch), [RecordWrite(stack, "net", "OS::Neutron::Net", "READY", 1)]
            )

    assert store.stacks_holding_records(range(SHARDS)) == ["app"]
    assert store.stacks_holding_records([s for s in range(SHARDS) if s != shard_for("app", SHARDS)]) == []
