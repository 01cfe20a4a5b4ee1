"""The state store: one object the engine and the daemon hold, every operation one transaction.

`Store` reads every time from the injected clock, runs each operation through the `Transactor`
(retrying dropped connections), and delegates the SQL to one module per idea: `leases`, `workers`,
`balance_step`, `fencing`, `stacks`, `records`, `work_queue`, `outbox`. Operations made on behalf of
a shard take a `Fence` and raise `StaleLease` without writing anything when its epoch is stale.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Connection, Engine
from sqlalchemy.engine import URL

from state import (
    abandonment,
    compared_records,
    generation_batches,
    leases,
    outbox,
    pass_writes,
    records,
    resource_listing,
    retry_requests,
    stacks,
    work_queue,
    workers,
)
from state.balance_step import Balanced, balance
from state.compared_records import ComparedRecord
from state.database import create_database_engine, create_listening_engine
from state.fencing import Fence, check_fence
from state.generation_batches import GenerationAsked, GenerationRecorded
from state.lease_results import Acquired, AcquireResult, HeldShard, Released, ReleaseResult, RenewResult
from state.lease_settings import LeaseSettings
from state.lease_table import ShardLeaseView, lease_table
from state.metadata_index import MetadataIndex
from state.migrate import upgrade
from state.outbox import NoteLine, PendingNote
from state.pass_writes import PassWritten, ShardWrites
from state.plan_memos import PlanMemos
from state.records import RecordedResource, RecordsWritten, RecordWrite
from state.resource_listing import ResourcePage
from state.retry_requests import RequestedRetry
from state.scaling import ScalingStore
from state.sealing import Sealer, is_sealed
from state.sharding import shard_for
from state.signal_notices import ScalingSignalListener
from state.software import SIGNAL_WRITERS, SoftwareStore
from state.stacks import (
    Generation,
    GenerationOutcome,
    GenerationSeen,
    StackRef,
    StackState,
    StackStatus,
)
from state.template_blocks import TemplateBlocksStore
from state.transactions import RetryPolicy, Transactor
from state.urls import database_url
from state.work_queue import (
    ClaimedWorkItem,
    FinishedWorkItem,
    NewWorkItem,
    QueueCounts,
    RetryRequest,
    Settled,
)
from state.workers import Heartbeat, LiveWorker, Reaped, WorkerIdentity
from timekeeping import Clock, Sleeper, SystemClock

GenerationT = TypeVar("GenerationT", Generation, GenerationSeen)
# SQLite connections for software rows at once: the agent API's threads (each poll's document is a
# read) and the cloud-call threads' reads of deployments; with fewer, a poll waited for a pooled
# connection until the pool's timeout while a fleet's agents polled
SOFTWARE_SQLITE_CONNECTIONS = 128


@dataclass(frozen=True)
class Purged:
    """How many finished work items and sent note lines a purge removed."""

    work_items: int
    notes: int


class Store:
    """Workers, shard leases, stacks, resource records, the work queue and the notes outbox."""

    def __init__(
        self,
        transactor: Transactor,
        *,
        clock: Clock,
        settings: LeaseSettings,
        sealer: Sealer | None = None,
        software_transactor: Transactor | None = None,
    ) -> None:
        """`software_transactor`: the connections software orchestration's rows use (the store's
        own when None)."""
        self._tx = transactor
        self._software_tx = software_transactor or transactor
        self._clock = clock
        self.settings = settings
        self._sealer = sealer
        self._metadata_index = MetadataIndex(clock)
        self._signal_tx_made = threading.Lock()
        self._signal_tx: Transactor | None = None

    def hide(self, stack: str, texts: Iterable[str]) -> None:
        """The texts of `stack`'s hidden parameter values: values holding one (in `stack` or a stack
        nested under it) are sealed at rest. Without a sealer (no key), nothing is sealed."""
        if self._sealer is not None:
            self._sealer.hide(stack, texts)

    def scaling(self) -> ScalingStore:
        """Autoscaling's rows (policy signals, groups' runtime sizes), on this database."""
        return ScalingStore(self._tx, self._clock, self.settings.shard_count)

    def scaling_signal_listener(
        self,
        heard: Callable[[], None],
        resources_heard: Callable[[Collection[str] | None], None] | None = None,
    ) -> ScalingSignalListener | None:
        """PostgreSQL: a listener (not started) calling `heard` whenever any daemon of the fleet
        keeps a signal (given `resources_heard`: a scaling signal, and `resources_heard` with the
        resources waiting for a deployment's or a handle's); None on SQLite, where the daemon
        keeping a signal is the one acting."""
        if self.dialect != "postgresql":
            return None
        return ScalingSignalListener(create_listening_engine(self._tx.engine.url), heard, resources_heard)

    def software(self) -> SoftwareStore:
        """Software orchestration's rows (configs, deployments, agent tokens, signals), on this database."""
        return SoftwareStore(self._software_tx, self._clock, self._metadata_index, self._signal_transactor())

    def plan_memos(self) -> PlanMemos:
        """Stacks' plan memos and records stamps on this database."""
        return PlanMemos(self._tx)

    def template_blocks(self) -> TemplateBlocksStore:
        """Templates' parsed blocks, kept so another load parses only what changed, on this database."""
        return TemplateBlocksStore(self._tx)

    def _signal_transactor(self) -> Transactor:
        """PostgreSQL: deployment signals' own pool, with no ping before each batch (a batch is one
        idempotent statement, run again on a fresh connection when its connection was dead)."""
        if self.dialect != "postgresql":
            return self._software_tx
        with self._signal_tx_made:
            if self._signal_tx is None:
                engine = create_database_engine(self._tx.engine.url, pre_ping=False, pool_size=SIGNAL_WRITERS)
                self._signal_tx = self._tx.on_engine(engine)
            return self._signal_tx

    @property
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self._tx.engine.dialect.name

    def close(self) -> None:
        """Close every pooled connection."""
        self._tx.engine.dispose()
        if self._software_tx is not self._tx:
            self._software_tx.engine.dispose()
        if self._signal_tx is not None:
            self._signal_tx.engine.dispose()

    # Workers
    def heartbeat(self, worker: WorkerIdentity) -> Heartbeat:
        """Register `worker` or record that it is alive now."""
        return self._tx.run("heartbeat", lambda c: workers.heartbeat(c, worker, now=self._clock.now()))

    def live_workers(self) -> list[LiveWorker]:
        """Workers with a heartbeat within the dead-after period."""
        return self._tx.read(
            "live workers",
            lambda c: workers.live_workers(c, now=self._clock.now(), dead_after=self.settings.dead_after),
        )

    def reap_dead_workers(self) -> Reaped:
        """Forget silent workers and make the work items they had claimed ready again."""
        return self._tx.run(
            "reap",
            lambda c: workers.reap_dead_workers(
                c, now=self._clock.now(), dead_after=self.settings.dead_after
            ),
        )

    # Leases
    def acquire(self, worker_id: str, shard: int) -> AcquireResult:
        """Take a free or expired shard at a new epoch (or renew it if already held)."""
        if not 0 <= shard < self.settings.shard_count:
            raise ValueError(f"shard {shard} does not exist: shards are 0 to {self.settings.shard_count - 1}")
        return self._tx.run(
            "acquire",
            lambda c: leases.acquire(
                c, worker_id, shard, now=self._clock.now(), lease_seconds=self.settings.lease_seconds
            ),
        )

    def renew(self, worker_id: str, shard: int, epoch: int) -> RenewResult:
        """Extend a held lease while its epoch is current and unexpired."""
        return self._tx.run(
            "renew",
            lambda c: leases.renew(
                c, worker_id, shard, epoch, now=self._clock.now(), lease_seconds=self.settings.lease_seconds
            ),
        )

    def renew_all(self, worker_id: str) -> list[Acquired]:
        """Extend every unexpired lease the worker holds, in one statement."""
        return self._tx.run(
            "renew all",
            lambda c: leases.renew_all(
                c, worker_id, now=self._clock.now(), lease_seconds=self.settings.lease_seconds
            ),
        )

    def release(self, worker_id: str, shard: int, epoch: int) -> ReleaseResult:
        """Give a shard back."""
        return self._tx.run(
            "release", lambda c: leases.release(c, worker_id, shard, epoch, now=self._clock.now())
        )

    def release_all(self, worker_id: str) -> list[Released]:
        """Give back every shard the worker holds (clean shutdown)."""

        def work(connection: Connection) -> list[Released]:
            now = self._clock.now()
            held = leases.shards_held(connection, worker_id, now=now)
            return leases.release_many(connection, worker_id, {h.shard: h.epoch for h in held}, now=now)

        return self._tx.run("release all", work)

    def leave(self, worker_id: str) -> list[Released]:
        """Clean shutdown: hand every shard back and deregister, so the others take their share at once."""

        def work(connection: Connection) -> list[Released]:
            now = self._clock.now()
            held = leases.shards_held(connection, worker_id, now=now)
            released = leases.release_many(connection, worker_id, {h.shard: h.epoch for h in held}, now=now)
            workers.deregister(connection, worker_id)
            return released

        return self._tx.run("leave", work)

    def balance(self, worker: WorkerIdentity, busy: Collection[int] = ()) -> Balanced:
        """Heartbeat, renew, and move towards the worker's fair share, in one transaction; surplus
        shards in `busy` (cloud calls still out) drain before they are handed back."""
        return self._tx.run(
            "balance", lambda c: balance(c, worker, self.settings, now=self._clock.now(), busy=busy)
        )

    def shards_held(self, worker_id: str) -> list[HeldShard]:
        """The shards the worker holds unexpired, with their epochs."""
        return self._tx.read("shards held", lambda c: leases.shards_held(c, worker_id, now=self._clock.now()))

    def lease_table(self) -> list[ShardLeaseView]:
        """Every shard's lease."""
        return self._tx.read("lease table", lambda c: lease_table(c, now=self._clock.now()))

    def check_fence(self, fence: Fence) -> None:
        """Raise `StaleLease` unless `fence` is current (a read; writes check it themselves)."""
        self._tx.read("check fence", lambda c: check_fence(c, fence, now=self._clock.now()))

    # Stacks and generations
    def ensure_stack(self, name: str) -> StackRef:
        """The stack's row, created PENDING if missing."""
        return self._tx.run(
            "ensure stack",
            lambda c: stacks.ensure_stack(
                c, name, shard_count=self.settings.shard_count, now=self._clock.now()
            ),
        )

    def record_generation(
        self,
        stack: str,
        *,
        commit_sha: str,
        definition_digest: str,
        inputs: dict[str, Any],
        fence: Fence | None = None,
        after: int | None = None,
    ) -> GenerationOutcome:
        """Record a new generation of `stack` only when its definition digest changed.

        `fence` is the lease the caller acts under: the stack's own shard for a stack of the
        repository, the parent's shard for a nested stack (whose own shard may be held elsewhere).
        A stale one raises `StaleLease` and records nothing, so a worker that lost its lease cannot
        put a generation after the one its successor recorded.

        `after`: the newest generation the caller decided from (e.g. the one a nested member being
        removed was at); when a newer one was recorded meanwhile, nothing is recorded and the
        outcome is `NewerGeneration` with it, so a decision made on an old generation cannot land
        after a newer one.

        `inputs` is stored as given. A nested stack's lineage in it holds its parents' resolved
        properties (hidden values included, as resource records hold them): never display it.
        """

        def work(connection: Connection) -> GenerationOutcome:
            now = self._clock.now()
            if fence is not None:
                check_fence(connection, fence, now=now)
            stacks.ensure_stack(connection, stack, shard_count=self.settings.shard_count, now=now)
            outcome = stacks.record_generation(
                connection,
                stack,
                commit_sha=commit_sha,
                definition_digest=definition_digest,
                inputs=inputs if self._sealer is None else self._sealer.sealed_value(stack, inputs),
                now=now,
                after=after,
            )
            return dataclasses.replace(outcome, generation=self._opened_generation(outcome.generation))

        return self._tx.run("record generation", work)

    def record_generations(
        self, asked: Sequence[GenerationAsked], *, fence: Fence
    ) -> list[GenerationRecorded]:
        """`record_generation` of many stacks in one transaction under one `fence` (the parent's
        lease, for nested stacks): each stack's outcome, in the order asked. A stale fence raises
        `StaleLease` and records nothing."""

        def work(connection: Connection) -> list[GenerationRecorded]:
            now = self._clock.now()
            check_fence(connection, fence, now=now)
            sealed = [
                dataclasses.replace(item, inputs=self._sealer.sealed_value(item.stack, item.inputs))
                if self._sealer is not None
                else item
                for item in asked
            ]
            recorded = generation_batches.record_generations(
                connection, sealed, shard_count=self.settings.shard_count, now=now
            )
            return [
                dataclasses.replace(
                    item,
                    outcome=dataclasses.replace(
                        item.outcome, generation=self._opened_generation(item.outcome.generation)
                    ),
                )
                for item in recorded
            ]

        if not asked:
            return []
        # the engine's pass waits on it, every stack's with it: urgent, as the pass's own write
        return self._tx.run("record generations", work, urgent=True)

    def _opened_generation(self, generation: GenerationT) -> GenerationT:
        if self._sealer is None or not is_sealed(generation.inputs):
            return generation
        return dataclasses.replace(generation, inputs=self._sealer.opened(generation.inputs))

    def newest_generation(self, stack: str) -> Generation | None:
        """The stack's newest generation (None before the first)."""
        newest = self._tx.read("newest generation", lambda c: stacks.newest_generation(c, stack))
        return None if newest is None else self._opened_generation(newest)

    def set_status(
        self,
        stack: str,
        status: StackStatus,
        *,
        reasons: Sequence[str] = (),
        generation: int | None = None,
        fence: Fence | None = None,
        commit: str | None = None,
    ) -> None:
        """Set a stack's status (at `commit`, when known); a shard holder passes its `fence`, so a
        stale one writes nothing."""

        def work(connection: Connection) -> None:
            now = self._clock.now()
            if fence is not None:
                check_fence(connection, fence, now=now)
            stacks.set_status(
                connection,
                stack,
                status,
                reasons=list(reasons),
                generation=generation,
                now=now,
                commit=commit,
            )

        self._tx.run("set status", work)

    def end_generations(
        self, stack: str, generations: Sequence[int], status: StackStatus, *, fence: Fence
    ) -> None:
        """Record how older generations of `stack` ended (SUPERSEDED); fenced like `set_status`."""

        def work(connection: Connection) -> None:
            check_fence(connection, fence, now=self._clock.now())
            stacks.end_generations(connection, stack, list(generations), status)

        self._tx.run("end generations", work)

    def generation_endings(self, stack: str) -> dict[int, StackStatus]:
        """generation -> how it ended, for the generations of `stack` that ended before settling."""
        return self._tx.read("generation endings", lambda c: stacks.generation_endings(c, stack))

    def store_outputs(self, stack: str, outputs: dict[str, Any], *, fence: Fence | None = None) -> None:
        """Replace a stack's outputs; fenced like `set_status`."""

        def work(connection: Connection) -> None:
            now = self._clock.now()
            if fence is not None:
                check_fence(connection, fence, now=now)
            stacks.store_outputs(connection, stack, outputs, now=now)

        self._tx.run("store outputs", work)

    def abandon(self, stack: str, reason: str) -> list[str]:
        """Stop managing `stack` and its nested stacks (`state.abandonment`); their names."""
        now = self._clock.now()
        return self._tx.run(
            "abandon stack", lambda c: abandonment.abandon_tree(c, stack, reason=reason, now=now)
        )

    def end_abandonment(self, stack: str, reason: str) -> None:
        """`stack` and its nested stacks are managed again (adopted): no longer ABANDONED."""
        now = self._clock.now()
        self._tx.run(
            "end abandonment", lambda c: abandonment.end_abandonment(c, stack, reason=reason, now=now)
        )

    def read_stack(self, stack: str) -> StackState | None:
        """A stack's shard, status, reasons and outputs (None if unknown)."""
        return self._tx.read("read stack", lambda c: stacks.read_stack(c, stack))

    def read_outputs(self, stack: str) -> dict[str, Any]:
        """A stack's outputs, name -> value (empty when unknown)."""
        state = self.read_stack(stack)
        return {} if state is None else state.outputs

    def read_stacks(self, names: Sequence[str]) -> dict[str, StackState]:
        """The rows of the named stacks that exist, by name, in as few queries as the names allow."""
        if not names:
            return {}
        return self._tx.read("read stacks", lambda c: stacks.read_stacks(c, list(names)))

    def generations_since(self, shards: Sequence[int], after_id: int, up_to: int) -> list[GenerationSeen]:
        """Generations with `after_id < id <= up_to` (ids order them store-wide) on `shards`.

        Read `newest_generation_id` first and pass it as `up_to`: a generation committed while
        this reads is then seen by the next call instead of skipped.
        """
        seen = self._tx.read(
            "generations since", lambda c: stacks.generations_since(c, list(shards), after_id, up_to)
        )
        return [self._opened_generation(generation) for generation in seen]

    def newest_generation_id(self) -> int:
        """The store-wide order of the newest generation recorded (0 before the first)."""
        return self._tx.read("newest generation id", stacks.newest_generation_id)

    def count_records(self, stack: str) -> int:
        """How many resource records `stack` has."""
        return self._tx.read("count records", lambda c: records.count_records(c, stack))

    def stacks_on_shards(self, shards: Sequence[int]) -> list[StackRef]:
        """The stacks on the given shards."""
        return self._tx.read("stacks on shards", lambda c: stacks.stacks_on_shards(c, list(shards)))

    def stacks_holding_records(self, shards: Sequence[int]) -> list[str]:
        """The top-level stacks on `shards` that still hold resource records."""
        if not shards:
            return []
        return self._tx.read(
            "stacks holding records", lambda c: stacks.stacks_holding_records(c, list(shards))
        )

    # Retry requests
    def request_retry(self, stack: str, resource: str | None = None) -> int:
        """Ask the holder of `stack`'s shard to retry its FAILED resources (or `resource`) now."""

        def work(connection: Connection) -> int:
            shard = shard_for(stack, self.settings.shard_count)
            return retry_requests.request_retry(
                connection, stack, resource, shard=shard, now=self._clock.now()
            )

        return self._tx.run("request retry", work)

    def requested_retries(self, shards: Sequence[int]) -> list[RequestedRetry]:
        """The retry requests waiting on `shards`, oldest first."""
        if not shards:
            return []
        return self._tx.read("requested retries", lambda c: retry_requests.requested_retries(c, shards))

    def forget_retries(self, ids: Sequence[int]) -> None:
        """Retry requests acted on."""
        if ids:
            self._tx.run("forget retries", lambda c: retry_requests.forget_retries(c, ids))

    # Resource records
    def read_records(self, stack: str) -> list[RecordedResource]:
        """Every record of a stack."""
        return self._tx.read("read records", lambda c: records.read_records(c, stack, self._sealer))

    def resource_page(self, stack: str, offset: int, limit: int) -> ResourcePage:
        """A page of a stack's resources as operators read them (no property or attribute values)."""
        return self._tx.read(
            "resource page", lambda c: resource_listing.resource_page(c, stack, offset, limit)
        )

    def resources_by_status(self, shards: Collection[int]) -> dict[str, int]:
        """How many resource records the stacks on `shards` (nested ones included) have in each status."""
        if not shards:
            return {}
        return self._tx.read(
            "resources by status",
            lambda c: resource_listing.resources_by_status(c, sorted(shards), self.settings.shard_count),
        )

    def newest_digests_under(self, stack: str) -> dict[str, str]:
        """The newest generation's definition digest of every stack nested under `stack`, in one read."""
        return self._tx.read("nested digests", lambda c: stacks.newest_digests_under(c, stack))

    def read_compared_records(self, stack: str) -> list[ComparedRecord]:
        """Every current record of a stack, its values fetched and decoded only when read (what a
        plan compares)."""
        return self._compared_records(compared_records.of_stack(stack)).get(stack, [])

    def read_compared_records_named(self, stack: str, names: Collection[str]) -> list[ComparedRecord]:
        """`read_compared_records` of the records of `stack` with these logical names."""
        found: list[ComparedRecord] = []
        ordered = sorted(names)
        for start in range(0, len(ordered), compared_records.NAMES_PER_READ):
            where = compared_records.named_in_stack(
                stack, ordered[start : start + compared_records.NAMES_PER_READ]
            )
            found.extend(self._compared_records(where).get(stack, []))
        return found

    def read_compared_records_under(self, stack: str) -> dict[str, list[ComparedRecord]]:
        """`read_compared_records` of every stack nested under `stack`, by stack, in one read."""
        return self._compared_records(compared_records.under_stack(stack))

    def _compared_records(self, where: ColumnElement[bool]) -> dict[str, list[ComparedRecord]]:
        properties = self._column_texts("properties", where)
        attributes = self._column_texts("attributes", where)
        return self._tx.read(
            "read compared records",
            lambda c: compared_records.read_compared_records(c, where, properties, attributes),
        )

    def _column_texts(self, column: str, where: ColumnElement[bool]) -> compared_records.ColumnTexts:
        return compared_records.ColumnTexts(
            lambda record_id: self._tx.read(
                f"read {column}", lambda c: compared_records.column_text(c, column, record_id)
            ),
            lambda: self._tx.read(
                f"read {column}", lambda c: compared_records.column_texts(c, column, where)
            ),
            self._sealer,
        )

    def read_records_of(self, stacks: Sequence[str]) -> dict[str, list[RecordedResource]]:
        """Every record of each of `stacks`, by stack (an empty list for one without any), in one read."""
        if not stacks:
            return {}
        return self._tx.read(
            "read records of stacks", lambda c: records.read_records_of(c, list(stacks), self._sealer)
        )

    def read_records_under(self, stack: str) -> dict[str, list[RecordedResource]]:
        """Every record of the stacks nested under `stack`, by stack, in one read."""
        return self._tx.read(
            "read nested records", lambda c: records.read_records_under(c, stack, self._sealer)
        )

    def write_records(
        self, fence: Fence, upserts: Sequence[RecordWrite] = (), deletes: Sequence[int] = ()
    ) -> RecordsWritten:
        """Upsert and delete records in one transaction under `fence`; `StaleLease` writes nothing."""
        return self._tx.run(
            "write records",
            lambda c: records.write_records(
                c, fence, upserts, deletes, now=self._clock.now(), sealer=self._sealer
            ),
        )

    def write_pass(self, writes: Sequence[ShardWrites]) -> PassWritten:
        """An engine pass's writes for every shard it acted on (one `ShardWrites` per shard), in one
        transaction; a shard whose fence is stale is left out whole and named in the result."""
        if not writes:
            return PassWritten(record_ids={}, stale=())
        return self._tx.run(
            "write pass",
            lambda c: pass_writes.write_pass(c, writes, now=self._clock.now(), sealer=self._sealer),
            urgent=True,
        )

    # Work queue
    def enqueue_work(self, items: Sequence[NewWorkItem]) -> list[int]:
        """Enqueue work items in one batch; their ids in order."""
        if self._sealer is not None:
            sealer = self._sealer
            items = [
                dataclasses.replace(item, payload=sealer.sealed_value(item.stack, item.payload))
                for item in items
            ]
        return self._tx.run("enqueue work", lambda c: work_queue.enqueue(c, items, now=self._clock.now()))

    def work_due(self) -> bool:
        """Whether any ready item is due (a cheap read before claiming)."""
        return self._tx.read("work due", lambda c: work_queue.any_due(c, now=self._clock.now()))

    def claim_work(self, worker_id: str, limit: int) -> list[ClaimedWorkItem]:
        """Claim up to `limit` due items."""
        claimed = self._tx.run(
            "claim work", lambda c: work_queue.claim(c, worker_id, limit, now=self._clock.now())
        )
        sealer = self._sealer
        if sealer is None:
            return claimed
        return [
            dataclasses.replace(item, payload=sealer.opened(item.payload))
            if is_sealed(item.payload)
            else item
            for item in claimed
        ]

    def complete_work(self, worker_id: str, item_ids: Sequence[int]) -> Settled:
        """Mark claimed items done."""
        return self._tx.run(
            "complete work", lambda c: work_queue.complete(c, worker_id, item_ids, now=self._clock.now())
        )

    def complete_work_with_results(self, worker_id: str, results: Mapping[int, dict[str, Any]]) -> Settled:
        """Mark claimed items done, each with its result as its new payload.

        A result is a cloud call's outcome on its way back to the worker that queued the call: a
        body holding a hidden value of the item's stack is sealed like the call itself was.
        """

        def work(connection: Connection) -> Settled:
            sealed = results if self._sealer is None else self._sealed_results(connection, results)
            return work_queue.complete_with_results(connection, worker_id, sealed, now=self._clock.now())

        return self._tx.run("complete work with results", work)

    def _sealed_results(
        self, connection: Connection, results: Mapping[int, dict[str, Any]]
    ) -> dict[int, dict[str, Any]]:
        sealer = self._sealer
        assert sealer is not None
        stacks = work_queue.stacks_of(connection, list(results))
        return {
            item_id: sealer.sealed_value(stacks[item_id], result) if item_id in stacks else result
            for item_id, result in results.items()
        }

    def finished_work(self, item_ids: Sequence[int]) -> list[FinishedWorkItem]:
        """Those of `item_ids` that are done or failed, with their payloads (results), opened."""
        if not item_ids:
            return []
        finished = self._tx.read("finished work", lambda c: work_queue.read_finished(c, list(item_ids)))
        sealer = self._sealer
        if sealer is None:
            return finished
        opened = sealer.opened
        return [
            dataclasses.replace(item, payload=opened(item.payload)) if is_sealed(item.payload) else item
            for item in finished
        ]

    def withdraw_work(self, item_ids: Sequence[int]) -> list[int]:
        """Delete those of `item_ids` nobody claimed yet; the ids withdrawn."""
        if not item_ids:
            return []
        return self._tx.run("withdraw work", lambda c: work_queue.withdraw(c, list(item_ids)))

    def forget_work(self, item_ids: Sequence[int]) -> int:
        """Delete finished items whose results were read."""
        if not item_ids:
            return 0
        return self._tx.run("forget work", lambda c: work_queue.forget(c, list(item_ids)))

    def retry_work(self, worker_id: str, requests: Sequence[RetryRequest]) -> Settled:
        """Put claimed items back, each due after its delay."""
        return self._tx.run(
            "retry work", lambda c: work_queue.retry(c, worker_id, requests, now=self._clock.now())
        )

    def fail_work(self, worker_id: str, item_ids: Sequence[int], error: str) -> Settled:
        """Mark claimed items failed for good."""
        return self._tx.run(
            "fail work", lambda c: work_queue.fail(c, worker_id, item_ids, error, now=self._clock.now())
        )

    def purge_finished(self, *, older_than: float) -> Purged:
        """Delete work items finished more than `older_than` seconds ago, and note lines sent as long ago."""
        before = self._clock.now() - older_than

        def work(connection: Connection) -> Purged:
            purged = work_queue.purge_finished(connection, finished_before=before)
            return Purged(
                work_items=purged.work_items, notes=outbox.purge_sent(connection, sent_before=before)
            )

        return self._tx.run("purge finished", work)

    def work_counts(self) -> QueueCounts:
        """How many work items are in each status."""
        return self._tx.read("work counts", work_queue.count_by_status)

    # Notes outbox
    def enqueue_notes(self, notes: Sequence[NoteLine]) -> list[int]:
        """Record note lines to be written to git."""
        return self._tx.run("enqueue notes", lambda c: outbox.enqueue_notes(c, notes, now=self._clock.now()))

    def pending_notes(self, limit: int = 1000) -> list[PendingNote]:
        """The oldest unsent note lines."""
        return self._tx.read("pending notes", lambda c: outbox.pending_notes(c, limit))

    def mark_notes_sent(self, note_ids: Sequence[int]) -> int:
        """Mark note lines sent."""
        return self._tx.run("mark notes sent", lambda c: outbox.mark_sent(c, note_ids, now=self._clock.now()))


def open_store(
    url: str | URL,
    *,
    clock: Clock,
    settings: LeaseSettings | None = None,
    sleeper: Sleeper | None = None,
    retry: RetryPolicy | None = None,
    jitter: random.Random | None = None,
    upgrade_schema: bool = True,
    sealer: Sealer | None = None,
) -> Store:
    """Open the store at `url` (any SQLAlchemy URL; `postgresql://` means psycopg 3).

    Brings the schema up to date first (`upgrade_schema=False` to skip) and makes sure every shard
    has its lease row. `sealer` seals hidden values at rest (see `state.sealing`). On PostgreSQL,
    a session idle inside a transaction for a third of the lease is ended by the server, so a frozen
    worker cannot hold a lease row locked past its expiry.

    Software orchestration's rows (`software()`) go through a pool of connections of their own:
    they are written and read from the cloud-call threads and the agent API's, hundreds at once,
    and the engine's passes and the lease renewals must not queue behind them for a connection; on
    SQLite that pool has room for every such thread reading at once.
    """
    settings = settings or LeaseSettings()
    if upgrade_schema:
        upgrade(url)

    def new_engine(sqlite_connections: int = 15) -> Engine:
        return create_database_engine(
            url, idle_transaction_timeout=settings.lease_seconds / 3, sqlite_connections=sqlite_connections
        )

    store_transactor = Transactor(
        new_engine(), clock=clock, sleeper=sleeper or SystemClock(), policy=retry, jitter=jitter
    )
    store_transactor.run("ensure shard rows", lambda c: leases.ensure_shard_rows(c, settings.shard_count))
    parsed = database_url(url)
    in_memory = parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:")
    # a database in memory is one connection's own; on SQLite both pools' writers share their turns
    software = None if in_memory else store_transactor.on_engine(new_engine(SOFTWARE_SQLITE_CONNECTIONS))
    return Store(
        store_transactor, clock=clock, settings=settings, sealer=sealer, software_transactor=software
    )
