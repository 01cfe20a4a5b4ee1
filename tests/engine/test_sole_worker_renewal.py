"""A one-shot run (`reconciler apply`, `adopt`) keeps its leases through a pass longer than a lease."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from reconciler.engine import SoleWorkerLeases
from state.lease_settings import LeaseSettings
from state.store import Store, open_store
from state.workers import WorkerIdentity
from timekeeping import SystemClock

SETTINGS = LeaseSettings(shard_count=4, lease_seconds=1.0, renew_seconds=0.3, safety_margin=0.2)


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    clock = SystemClock()
    opened = open_store(database_url, clock=clock, settings=SETTINGS)
    opened.heartbeat(WorkerIdentity("apply", "host", 1))
    yield opened
    opened.close()


def _leases(store: Store) -> SoleWorkerLeases:
    leases = SoleWorkerLeases(store, "apply", SystemClock())
    for shard in range(SETTINGS.shard_count):
        leases.want(shard)
    return leases


def test_leases_renewed_meanwhile_outlive_a_block_three_leases_long(store: Store) -> None:
    leases = _leases(store)
    epochs = dict(leases.held())
    with leases.renewed_meanwhile():
        time.sleep(3 * SETTINGS.lease_seconds)  # an engine pass that asks nothing of the leases
        assert leases.held() == epochs
    assert {held.shard for held in store.shards_held("apply")} == set(epochs)


def test_without_renewal_such_a_block_loses_them(store: Store) -> None:
    leases = _leases(store)
    time.sleep(SETTINGS.lease_seconds + SETTINGS.renew_seconds)
    assert leases.held() == {}
