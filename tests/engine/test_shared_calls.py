"""Cloud calls through the shared work queue: queued by a coordinator, run by any worker.

Real store (SQLite and PostgreSQL), real simulated cloud, a stepped clock; the executor's threads
are real, so the tests pump until the outcomes are back.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import replace
from pathlib import Path

from providers.interface import Marker
from reconciler.daemon.clouds import CloudRoot
from reconciler.engine import Engine, SoleWorkerLeases, StackStatus
from reconciler.engine.call_pool import PendingCall
from reconciler.engine.call_specs import CallSpec, outcome_from_json, outcome_json
from reconciler.engine.outcomes import Applied, Deleted, Failed, Observed, RetryLater
from reconciler.engine.shared_calls import SharedCalls, SharedExecutor
from state import Acquired, Fence, WorkerIdentity
from tests.engine.templates import servers
from tests.engine.world import TEST_SETTINGS, World

SERVER = {"name": "web", "image": "cirros-0.6.2-x86_64-disk", "flavor": "m1.small"}


def _lease(world: World, worker: str, shard: int) -> Fence:
    acquired = world.store.acquire(worker, shard)
    assert isinstance(acquired, Acquired)
    return Fence(shard, acquired.epoch)


def _create(record_id: str) -> CallSpec:
    return CallSpec(
        "create", "sim", "OS::Nova::Server", properties=SERVER, marker=Marker("app", "web", record_id)
    )


INBOX: deque[PendingCall] = deque()


def _until_back(calls: SharedCalls, executor: SharedExecutor, *pending: PendingCall) -> None:
    give_up = time.monotonic() + 60  # real threads run the calls: a bound, not a measurement
    while time.monotonic() < give_up:
        executor.pump()
        calls.collect()
        if all(call.delivered for call in pending):
            assert all(call in INBOX for call in pending)
            return
        time.sleep(0.005)
    raise AssertionError("the queued calls never came back")


def _world(tmp_path: Path, database_url: str) -> World:
    world = World(tmp_path, database_url)
    world.engine.close()
    world.leases.release_all()
    return world


def test_a_queued_create_runs_on_another_worker_and_its_outcome_comes_back(
    tmp_path: Path, database_url: str
) -> None:
    world = _world(tmp_path, database_url)
    calls = SharedCalls(world.store)
    executor = SharedExecutor(world.store, CloudRoot(world.clock, sim=world.sim), "helper", threads=2)
    fence = _lease(world, "coordinator", 3)

    created = calls.offer("app", fence, _create("41"), INBOX, None)
    observed_nothing = calls.offer(
        "app", fence, CallSpec("observe", "sim", "OS::Nova::Server", ("gone",)), INBOX, None
    )
    nowhere = CallSpec("create", "nowhere", "OS::Nova::Server", marker=Marker("a", "b", "1"))
    unknown = calls.offer("app", fence, nowhere, INBOX, None)
    assert calls.flush() == 3
    _until_back(calls, executor, created, observed_nothing, unknown)

    outcome = created.outcome()
    assert isinstance(outcome, Applied)
    (server,) = world.live("servers")
    assert outcome.live.physical_id == server["id"]
    assert outcome.live.marker == Marker("app", "web", "41")
    assert observed_nothing.outcome() == Observed({})
    failed = unknown.outcome()
    assert isinstance(failed, Failed) and "nowhere" in failed.message
    assert calls.in_flight == 0
    assert world.store.work_counts().by_status == {}  # read results are forgotten
    deleted = calls.offer(
        "app", fence, CallSpec("delete", "sim", "OS::Nova::Server", (server["id"],)), INBOX, None
    )
    calls.flush()
    _until_back(calls, executor, deleted)
    assert deleted.outcome() == Deleted()
    assert world.live("servers") == []
    executor.stop()
    world.store.close()


def test_a_call_queued_under_a_lease_that_was_lost_is_not_sent(tmp_path: Path, database_url: str) -> None:
    world = _world(tmp_path, database_url)
    calls = SharedCalls(world.store)
    executor = SharedExecutor(world.store, CloudRoot(world.clock, sim=world.sim), "helper", threads=2)
    stale = _lease(world, "coordinator", 5)
    world.clock.sleep(world.store.settings.lease_seconds + 1)
    _lease(world, "successor", 5)  # the shard moved on: a new epoch

    future = calls.offer("app", stale, _create("7"), INBOX, None)
    calls.flush()
    _until_back(calls, executor, future)

    outcome = future.outcome()
    assert isinstance(outcome, RetryLater) and "lease" in outcome.message
    assert world.live("servers") == []
    executor.stop()
    world.store.close()


def test_an_item_reclaimed_from_a_dead_worker_adopts_what_its_first_run_made(
    tmp_path: Path, database_url: str
) -> None:
    """Given a worker that claimed a queued create, made the server and died before storing the
    outcome; when the item is reclaimed and run by another worker; then the server is adopted by
    its marker, and the cloud holds no duplicate."""
    world = _world(tmp_path, database_url)
    calls = SharedCalls(world.store)
    fence = _lease(world, "coordinator", 9)
    future = calls.offer("app", fence, _create("77"), INBOX, None)
    calls.flush()
    world.store.heartbeat(WorkerIdentity("doomed", "host-a", 1))
    (item,) = world.store.claim_work("doomed", 10)
    dead_executor = SharedExecutor(world.store, CloudRoot(world.clock, sim=world.sim), "doomed", threads=1)
    dead_executor._run(item.id, CallSpec.from_json(item.payload["call"]))  # the call went out, then...
    assert len(world.live("servers")) == 1
    dead_at = world.clock.now() + world.store.settings.dead_after + 1  # ...its worker died unrecorded
    while world.clock.now() < dead_at:  # the coordinator, alive, renews its lease meanwhile
        world.clock.sleep(world.store.settings.renew_seconds)
        assert isinstance(world.store.renew("coordinator", 9, fence.epoch), Acquired)
    assert world.store.reap_dead_workers().reclaimed_items == 1

    executor = SharedExecutor(world.store, CloudRoot(world.clock, sim=world.sim), "helper", threads=2)
    _until_back(calls, executor, future)

    outcome = future.outcome()
    assert isinstance(outcome, Applied) and outcome.adopted
    (server,) = world.live("servers")
    assert outcome.live.physical_id == server["id"]
    executor.stop()
    world.store.close()


def test_outcomes_survive_the_round_trip_through_json() -> None:
    for outcome in (
        RetryLater("slow down", 3.0),
        Failed("quota exceeded"),
        Deleted(),
        Observed({}),
    ):
        assert outcome_from_json(outcome_json(outcome)) == outcome
    unknown = outcome_from_json({"kind": "Exploded", "fields": {}})
    assert isinstance(unknown, RetryLater) and "Exploded" in unknown.message


def test_a_coordinator_with_a_full_pool_spreads_its_creates_to_another_worker(
    tmp_path: Path, database_url: str
) -> None:
    """Given a coordinator whose pool holds one call at a time and another live worker running an
    executor; when a stack of twelve servers converges; then some creates ran on the other worker,
    every server exists once, and the queue is empty afterwards."""
    world = _world(tmp_path, database_url)
    for worker in ("coordinator", "helper"):
        world.store.heartbeat(WorkerIdentity(worker, "host", 1))
    leases = SoleWorkerLeases(world.store, "coordinator", world.clock)
    for shard in range(world.store.settings.shard_count):
        leases.want(shard)
    settings = replace(TEST_SETTINGS, pool_size=1, sent_per_thread=1)
    engine = Engine(
        world.store,
        CloudRoot(world.clock, sim=world.sim),
        world.clock,
        "coordinator",
        leases=leases,
        sleeper=world.clock,
        settings=settings,
        shared=SharedCalls(world.store),
    )
    executor = SharedExecutor(world.store, CloudRoot(world.clock, sim=world.sim), "helper", threads=4)
    executor.start()
    world.engine = engine
    names = [f"web{index}" for index in range(12)]
    world.commit({"stack.yaml": servers(names)})
    world.submit("app", "stack.yaml")

    report = world.converge("app")["app"]

    executor.stop()
    assert report.status is StackStatus.CONVERGED, report.failures
    assert executor.ran > 0, "no call was queued for the other worker"
    live = world.live("servers")
    assert sorted(server["name"] for server in live) == sorted(names)
    recorded = {
        record.physical_id for record in world.store.read_records("app") if record.type == "OS::Nova::Server"
    }
    assert recorded == {server["id"] for server in live}
    assert world.store.work_counts().by_status == {}
    engine.close()
    world.store.close()
