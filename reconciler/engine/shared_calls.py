"""Cloud calls through the shared work queue, so one giant stack's calls spread over every worker.

A stack's coordinator runs its calls on its own worker's pool first. When that pool is full and
other workers are alive, further calls become work items (DESIGN.md §5): `SharedCalls` enqueues them
in one batch per pass, each carrying the coordinator's lease (shard, epoch), and reads their outcomes
back. Every worker runs a `SharedExecutor`, which claims items in batches while it has idle threads
(PostgreSQL: `FOR UPDATE SKIP LOCKED`), checks that the lease of the coordinator that queued them is
still current (a stale coordinator's calls are not sent: DESIGN.md §4.8), runs them against its own
providers for the cloud named, and stores each outcome as its item's payload.

Exactly once: a create carries its idempotency marker like any other, so an item run twice (its
executor died after the call and the item was reclaimed) adopts what the first run made.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from reconciler.engine.call_pool import PendingCall
from reconciler.engine.call_specs import CALL_KIND, CallSpec, outcome_from_json, outcome_json, run_call
from reconciler.engine.outcomes import CallOutcome, ObserveOutcome, RetryLater
from reconciler.engine.provider_set import CloudProviders
from state.errors import StaleLease, StateError
from state.fencing import Fence
from state.store import Store
from state.work_queue import ClaimedWorkItem, NewWorkItem, WorkStatus

LOG = logging.getLogger(__name__)
Outcome = CallOutcome | ObserveOutcome


@dataclass(frozen=True)
class _Offered:
    stack: str
    fence: Fence
    spec: CallSpec
    pending: PendingCall


class SharedCalls:
    """The coordinator's side: calls queued for any worker, their outcomes delivered to the caller.

    An outcome arrives the way the engine's own pool delivers one: the `PendingCall` handed out
    by `offer` is appended to its inbox. All of it runs on the engine's thread.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._offered: list[_Offered] = []
        self._waiting: dict[int, PendingCall] = {}

    @property
    def in_flight(self) -> int:
        return len(self._offered) + len(self._waiting)

    def offer(
        self, stack: str, fence: Fence, spec: CallSpec, inbox: deque[PendingCall], tag: object
    ) -> PendingCall:
        """Queue `spec` (sent at the next `flush`); its outcome is delivered to `inbox`."""
        pending = PendingCall.elsewhere(inbox, tag)
        self._offered.append(_Offered(stack, fence, spec, pending))
        return pending

    def flush(self) -> int:
        """Enqueue every call offered since the last flush, in one batch; how many."""
        offered, self._offered = self._offered, []
        if not offered:
            return 0
        items = [
            NewWorkItem(
                shard=entry.fence.shard,
                stack=entry.stack,
                kind=CALL_KIND,
                payload={"call": entry.spec.to_json(), "fence": [entry.fence.shard, entry.fence.epoch]},
            )
            for entry in offered
        ]
        try:
            ids = self._store.enqueue_work(items)
        except StateError as error:  # not sent: each call is retried by its coordinator
            for entry in offered:
                entry.pending.resolve(RetryLater(f"could not queue the call: {error}"))
            return 0
        for item_id, entry in zip(ids, offered, strict=True):
            self._waiting[item_id] = entry.pending
        return len(ids)

    def collect(self) -> int:
        """Deliver the outcomes of queued calls that finished; how many came back."""
        if not self._waiting:
            return 0
        finished = self._store.finished_work(list(self._waiting))
        for item in finished:
            pending = self._waiting.pop(item.id, None)
            if pending is None:
                continue
            if item.status is WorkStatus.DONE and isinstance(item.payload.get("outcome"), Mapping):
                pending.resolve(outcome_from_json(item.payload["outcome"]))
            else:
                pending.resolve(RetryLater(item.last_error or "the queued call failed"))
        self._store.forget_work([item.id for item in finished])
        return len(finished)

    def withdraw_all(self) -> None:
        """Take every queued call nobody claimed out of the queue (the engine is closing)."""
        self._offered = []
        self._store.withdraw_work(list(self._waiting))


class SharedDispatch:
    """When a coordinator may queue calls for other workers, and under which lease.

    Only while other workers are alive (asked every `check_every` seconds), and at most
    `per_worker` queued calls per other worker at once: each of them runs a `SharedExecutor`
    with that many threads.
    """

    def __init__(
        self, calls: SharedCalls, store: Store, *, per_worker: int, check_every: float = 5.0
    ) -> None:
        self.calls = calls
        self._store = store
        self._per_worker = per_worker
        self._check_every = check_every
        self._held: Mapping[int, int] = {}
        self._others = 0
        self._next_check = 0.0

    def begin_pass(self, held: Mapping[int, int], now: float) -> None:
        """At the start of a pass: the leases it acts under, the outcomes back, who else is alive."""
        self._held = held
        if now >= self._next_check:
            self._next_check = now + self._check_every
            try:
                self._others = max(0, len(self._store.live_workers()) - 1)
            except StateError:
                self._others = 0
        self.calls.collect()

    def room(self) -> int:
        """How many more calls may be queued now."""
        return max(0, self._others * self._per_worker - self.calls.in_flight)

    def offer(
        self, stack: str, shard: int, spec: CallSpec, inbox: deque[PendingCall], tag: object
    ) -> PendingCall | None:
        """Queue `spec` under the stack's lease; None when this worker does not hold it now."""
        epoch = self._held.get(shard)
        if epoch is None:
            return None
        return self.calls.offer(stack, Fence(shard, epoch), spec, inbox, tag)


class SharedExecutor:
    """A worker's side: claims queued calls while it has idle threads, runs them, stores outcomes."""

    def __init__(
        self,
        store: Store,
        clouds: CloudProviders,
        worker_id: str,
        *,
        threads: int,
        interval: float = 0.1,
    ) -> None:
        self._store = store
        self._clouds = clouds
        self._worker = worker_id
        self._threads = threads
        self._interval = interval
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="reconciler-shared")
        self._running: set[int] = set()  # ids of the items being run here
        self.ran = 0  # calls run here (for metrics and tests)
        self._done: queue.SimpleQueue[tuple[int, Outcome]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="reconciler-shared-claims", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop claiming; calls running finish and their outcomes are stored."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._pool.shutdown(wait=True)
        self._store_outcomes()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.pump()
            except StateError as error:  # the database is away: try again at the next round
                LOG.warning("shared calls: %s", error)
            except Exception:  # a bug must not stop this worker from serving the others for good
                LOG.exception("shared calls: a round failed; trying again")
            self._stop.wait(self._interval)

    def pump(self) -> int:
        """One round: store the outcomes that came back, claim while threads are idle; how many claimed."""
        self._store_outcomes()
        idle = self._threads - len(self._running)
        if idle <= 0 or not self._store.work_due():
            return 0
        claimed = self._store.claim_work(self._worker, idle)
        if not claimed:
            return 0
        current = self._current_fences(claimed)
        for item in claimed:
            fence = _fence_of(item)
            if item.kind != CALL_KIND or fence is None:
                self._done.put((item.id, RetryLater(f"not a cloud call: {item.kind}")))
                continue
            if fence not in current:
                self._done.put((item.id, RetryLater("the lease of the stack's coordinator is gone")))
                continue
            self._running.add(item.id)
            self.ran += 1
            spec = CallSpec.from_json(item.payload["call"])
            if item.attempts > 1 and spec.op == "create":  # an earlier claim may have made it
                spec = spec._replace(adopt_first=True)
            self._pool.submit(self._run, item.id, spec)
        return len(claimed)

    def _current_fences(self, claimed: list[ClaimedWorkItem]) -> set[Fence]:
        current: set[Fence] = set()
        for fence in {fence for item in claimed if (fence := _fence_of(item)) is not None}:
            try:
                self._store.check_fence(fence)
            except StaleLease:
                continue
            current.add(fence)
        return current

    def _run(self, item_id: int, spec: CallSpec) -> None:
        try:
            outcome = run_call(spec, self._clouds)
        except Exception as error:  # run_call returns outcomes; this is a bug, retried by the caller
            outcome = RetryLater(f"unexpected {error.__class__.__name__}: {error}")
        self._done.put((item_id, outcome))

    def _store_outcomes(self) -> None:
        results: dict[int, dict[str, Any]] = {}
        while True:
            try:
                item_id, outcome = self._done.get_nowait()
            except queue.Empty:
                break
            results[item_id] = {"outcome": outcome_json(outcome)}
            self._running.discard(item_id)
        if not results:
            return
        settled = self._store.complete_work_with_results(self._worker, results)
        if settled.not_held:
            LOG.info("shared calls: %d outcome(s) dropped: their items were reclaimed", len(settled.not_held))


def _fence_of(item: ClaimedWorkItem) -> Fence | None:
    fence = item.payload.get("fence")
    if not isinstance(fence, list) or len(fence) != 2:
        return None
    return Fence(int(fence[0]), int(fence[1]))
