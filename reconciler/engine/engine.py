"""The engine: every stack this worker holds, converged one non-blocking pass at a time.

`submit` hands a stack its newest desired generation at any moment (supersede, never block);
`step` runs one pass over every held stack and writes what the pass learned in ONE fenced batch per
shard; `converge` repeats passes until the stacks asked about settle (what `reconciler apply` uses).
Provider calls run on a bounded thread pool; native types run inline. Nested stacks (template
resources, groups, chains, OS::Heat::Stack) are stacks of their own, with their own records and
shard, submitted here by their parent's coordinator; when another worker holds a child's shard,
the child crosses the store instead (`nested_handoff`): this engine finds, on the shards it
holds, the nested generations other workers' coordinators recorded, and rebuilds them.
"""

from __future__ import annotations

import contextlib
import math
import random as random_module
import time
from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.engine.batching import BatchPolicy
from reconciler.engine.call_pool import CallPool
from reconciler.engine.desired import DesiredGeneration, DesiredStack, Policy
from reconciler.engine.held_shards import HeldShards
from reconciler.engine.nested_handoff import REMOVED, Lineage, NestedSpec, RemoteChildren, rebuild
from reconciler.engine.progress import Progress
from reconciler.engine.provider_set import CloudProviders
from reconciler.engine.random_source import RandomSource
from reconciler.engine.record_rows import state_from_record, write_for
from reconciler.engine.report import SETTLED_STATUSES, Failure, StackReport
from reconciler.engine.resource_state import ResourceState
from reconciler.engine.run_context import RunContext
from reconciler.engine.settings import EngineSettings
from reconciler.engine.shared_calls import SharedCalls, SharedDispatch
from reconciler.engine.stack_run import StackRun
from reconciler.engine.stack_status import StackStatus
from state.errors import StaleLease, StateError
from state.fencing import Fence
from state.records import RecordWrite
from state.stacks import GenerationSeen, NewGeneration
from state.store import Store
from timekeeping import Clock, Sleeper

REAL_WAIT_SLICE = 0.05  # the longest real wait for a call to come back while something else may be due
GATHER = 0.02  # once a call is back, how long others may join it before the pass (a pass has a fixed cost)
MAX_EXTRA_ROUNDS = 16  # passes repeated within one step while nested stacks hand results up
LOST_EPOCH = -1  # the epoch remembered for a stack whose shard this worker lost


class Engine:
    """Converges the stacks whose shards this worker holds."""

    def __init__(
        self,
        store: Store,
        providers: CloudProviders,
        clock: Clock,
        worker_id: str,
        *,
        leases: HeldShards,
        sleeper: Sleeper,
        random: RandomSource | None = None,
        settings: EngineSettings | None = None,
        shared: SharedCalls | None = None,
    ) -> None:
        """`shared`: queue calls for other workers when this one's pool is full (a daemon's choice)."""
        self._store = store
        self._providers = providers
        self._clock = clock
        self.worker_id = worker_id
        self._leases = leases
        self._sleeper = sleeper
        self.settings = settings or EngineSettings()
        self._pool = CallPool(self.settings.pool_size, "reconciler-call")
        self._shared = (
            None if shared is None else SharedDispatch(shared, store, per_worker=self.settings.sent_limit)
        )
        self._context = RunContext(
            self.settings, random or random_module.Random(), self._pool, _NestedStacksOf(self), self._shared
        )
        self._runs: dict[str, StackRun] = {}
        self._epochs: dict[str, int] = {}
        self._invalid: dict[str, StackReport] = {}
        self._held: Mapping[int, int] = {}  # the shards held at the current (or last) pass
        self._shards: dict[str, int] = {}  # a stack's shard never changes: asked once
        self.remote = RemoteChildren(store, self.settings.nested_poll)
        self._discovered: set[int] = set()  # shards whose nested generations were read
        self._watermark = 0  # generations up to this id were read on the shards discovered
        self._next_discovery = 0.0
        self._to_rebuild: dict[str, GenerationSeen] = {}
        self._ended: set[tuple[str, int]] = set()  # superseded generations recorded in the store

    def close(self) -> None:
        """Stop the pool (calls in flight finish; nothing new starts); unclaimed queued calls withdrawn.

        Records held back to be written soon (creates back while their resources build) are
        written first, fenced as every write: the next owner then needs no marker search for them.
        """
        held = self._held
        runs = [
            run
            for run in self._runs.values()
            if run.dirty_later and run.shard in held and self._epochs.get(run.name) == held[run.shard]
        ]
        with contextlib.suppress(StateError):
            self._write_records(runs, held, math.inf)
        self._pool.shutdown(cancel_pending=True)
        if self._shared is not None:
            # if the store is away the items stay; their stale lease keeps any executor from sending them
            with contextlib.suppress(StateError):
                self._shared.calls.withdraw_all()

    # Desired state ---------------------------------------------------------------------------

    def submit(self, stack: str, desired: DesiredGeneration) -> int:
        """Make `desired` the stack's newest generation (when its definition changed); its number."""
        spec = desired.spec
        policy = Policy(spec.cloud, spec.self_heal, spec.prune, float(spec.observe_interval))
        self._invalid.pop(stack, None)
        return self._submit(
            stack, desired.commit, desired.definition, policy, group_member=False, is_group=False
        )

    def invalid(self, stack: str, commit: str, reasons: Iterable[str]) -> None:
        """The commit's template is wrong: report INVALID and keep maintaining the last good generation.

        Like every write, the stack's status row is written only by its shard's holder, fenced by
        the lease epoch; a worker that does not hold the shard (or lost it) reports INVALID in its
        own report and leaves the row to the holder, which is told the same commit.
        """
        reasons = tuple(reasons)
        shard = self._store.ensure_stack(stack).shard
        epoch = self._leases.held().get(shard)
        if epoch is not None:
            try:
                self._store.set_status(stack, StackStatus.INVALID, reasons=reasons, fence=Fence(shard, epoch))
            except StaleLease:
                self._drop_shard(shard)
        failures = tuple(Failure("template", reason) for reason in reasons)
        self._invalid[stack] = StackReport(stack, StackStatus.INVALID, commit, None, failures=failures)

    def _submit(
        self,
        stack: str,
        commit: str,
        definition: DesiredStack,
        policy: Policy,
        *,
        group_member: bool,
        is_group: bool,
        batch: BatchPolicy | None = None,
        lineage: Lineage | None = None,
    ) -> int:
        nested = lineage is not None and lineage.nested
        inputs: dict[str, Any] = {"resources": len(definition.resources), "cloud": policy.cloud}
        if lineage is not None and lineage.nested:
            spec = NestedSpec(lineage, policy, group_member, is_group, batch)
            inputs = spec.to_inputs(len(definition.resources))
        outcome = self._store.record_generation(
            stack, commit_sha=commit, definition_digest=definition.digest(), inputs=inputs
        )
        generation = outcome.generation
        if nested and self._shard_of(stack) not in self._held:
            self.remote.watch(stack, definition)  # its holder rebuilds it from the lineage
            return generation.generation
        self.remote.forget(stack)
        run = self._runs.get(stack)
        if run is None:
            run = self._open_run(stack, policy.cloud)
        run.lineage = lineage or Lineage(stack)
        if (
            isinstance(outcome, NewGeneration)
            or run.definition is None
            or run.generation != generation.generation
        ):
            run.set_desired(
                generation.generation,
                generation.commit_sha,
                definition,
                policy,
                group_member=group_member,
                is_group=is_group,
                batch=batch,
            )
        return generation.generation

    def _shard_of(self, stack: str) -> int:
        shard = self._shards.get(stack)
        if shard is None:
            shard = self._shards[stack] = self._store.ensure_stack(stack).shard
        return shard

    def _open_run(self, stack: str, cloud: str) -> StackRun:
        shard = self._shard_of(stack)
        run = StackRun(stack, shard, self._providers.for_cloud(cloud), self._context)
        run.load(state_from_record(record) for record in self._store.read_records(stack))
        self._runs[stack] = run
        # Records read while another worker holds the shard may be stale by the time this one
        # acts on it: its first pass under a lease then rebuilds from the records.
        self._epochs[stack] = self._leases.held().get(shard, LOST_EPOCH)
        return run

    def _reopen(self, run: StackRun) -> StackRun:
        """After a takeover: forget what memory held, rebuild from the records, same desired state."""
        fresh = StackRun(run.name, run.shard, run.providers, self._context)
        fresh.lineage = run.lineage
        fresh.load(state_from_record(record) for record in self._store.read_records(run.name))
        fresh.set_desired(
            run.generation,
            run.commit or "",
            run.definition,
            run.policy,
            group_member=run.group_member,
            is_group=run.is_group,
            batch=run.batch,
        )
        self._runs[run.name] = fresh
        return fresh

    # The pass --------------------------------------------------------------------------------

    def step(self) -> Progress:
        """One non-blocking pass over every held stack; says when the next one is needed."""
        held = self._leases.held()
        self._held = held
        self._pool.deliver()
        acting: list[StackRun] = []
        stepped: set[str] = set()
        now = self._clock.now()
        self._begin_shared(held, now)
        self._discover(held, now)
        for parent_name, resource in self.remote.poll(now):
            parent = self._runs.get(parent_name)
            if parent is not None:
                parent.nested_changed(resource)
        while True:  # nested stacks submitted during the pass get their first pass in it too
            fresh = [run for name, run in list(self._runs.items()) if name not in stepped]
            if not fresh:
                break
            for known in fresh:
                stepped.add(known.name)
                epoch = held.get(known.shard)
                if epoch is None:
                    continue
                run = known if self._epochs.get(known.name) in (None, epoch) else self._reopen(known)
                self._epochs[run.name] = epoch
                acting.append(run)
                run.step(now)
        for _ in range(MAX_EXTRA_ROUNDS):  # a child settled or work became ready: no need to wait
            movable = [run for run in acting if run.can_move()]
            if not movable:
                break
            for run in movable:
                run.step(now)
        self._write_records(acting, held, now)
        for run in acting:
            # A run whose shard was just lost sends nothing more: its intents were not written,
            # and whoever holds the shard now rebuilds it from the records.
            if run.name in self._runs and self._epochs.get(run.name) != LOST_EPOCH:
                run.ids_assigned()
        self._flush_shared()
        self._notify_parents(acting)
        self._write_statuses(acting, held)
        return self._progress(acting)

    def _begin_shared(self, held: Mapping[int, int], now: float) -> None:
        if self._shared is not None:
            self._shared.begin_pass(held, now)  # outcomes of queued calls delivered, like the pool's

    def _flush_shared(self) -> None:
        if self._shared is not None:
            self._shared.calls.flush()  # the calls queued for other workers this pass, in one batch

    def _notify_parents(self, runs: list[StackRun]) -> None:
        """A nested stack that converged again after a repair tells its parent to read its values."""
        for run in runs:
            if run.status_due and run.status is StackStatus.CONVERGED and "/" in run.name:
                parent_name, _, resource = run.name.rpartition("/")
                parent = self._runs.get(parent_name)
                if parent is not None:
                    parent.nested_changed(resource)

    def _write_records(self, runs: list[StackRun], held: Mapping[int, int], now: float) -> None:
        by_shard: dict[int, tuple[list[RecordWrite], list[ResourceState], list[int]]] = {}
        for run in runs:
            upserts, deletes = run.take_writes(now)
            if not upserts and not deletes:
                continue
            writes, states, doomed = by_shard.setdefault(run.shard, ([], [], []))
            writes.extend(write_for(run.name, state) for state in upserts)
            states.extend(upserts)
            doomed.extend(deletes)
        for shard, (writes, states, doomed) in by_shard.items():
            try:
                written = self._store.write_records(Fence(shard, held[shard]), writes, doomed)
            except StaleLease:
                self._drop_shard(shard)
                continue
            for state, write, record_id in zip(states, writes, written.record_ids, strict=True):
                state.record_id = record_id
                state.recorded_replaced_by = write.replaced_by

    def _write_statuses(self, runs: list[StackRun], held: Mapping[int, int]) -> None:
        for run in runs:
            if run.name not in self._runs or not (run.status_due or run.outputs_due):
                continue
            fence = Fence(run.shard, held[run.shard])
            try:
                if run.outputs_due and run.status is not StackStatus.PROGRESSING:
                    self._store.store_outputs(run.name, run.outputs, fence=fence)
                    run.outputs_due = False
                if run.status_due:
                    self._record_superseded(run, fence)
                    reasons = [str(failure) for failure in run.failure_list()]
                    self._store.set_status(
                        run.name, run.status, reasons=reasons, generation=run.generation, fence=fence
                    )
                    run.status_due = False
            except StaleLease:
                self._drop_shard(run.shard)

    def _record_superseded(self, run: StackRun, fence: Fence) -> None:
        """The generations a newer one took over from while they were in progress end SUPERSEDED."""
        ended = [number for number in run.superseded.values() if (run.name, number) not in self._ended]
        if ended:
            self._store.end_generations(run.name, ended, StackStatus.SUPERSEDED, fence=fence)
            self._ended.update((run.name, generation) for generation in ended)

    def _drop_shard(self, shard: int) -> None:
        """The lease is gone: stop acting on its stacks; whoever holds it now carries on."""
        for name in [name for name, run in self._runs.items() if run.shard == shard]:
            self._epochs[name] = LOST_EPOCH  # forces a rebuild from records if the shard comes back

    def _progress(self, runs: list[StackRun]) -> Progress:
        wakes = [wake for run in runs if (wake := run.next_wake()) is not None]
        polled = self.remote.next_poll_at()
        if polled is not None and self._awaits_remote(runs):
            wakes.append(polled)
        return Progress(
            in_flight=sum(len(run.in_flight) for run in runs),
            busy=any(run.busy for run in runs),
            next_wake=min(wakes) if wakes else None,
        )

    def _awaits_remote(self, runs: list[StackRun]) -> bool:
        return any(
            state is not None and state.physical_id is not None and self.remote.watches(state.physical_id)
            for run in runs
            for state in (run.records.get(name) for name in run.waiting_children)
        )

    # Nested stacks held here, made elsewhere -------------------------------------------------

    def _discover(self, held: Mapping[int, int], now: float) -> None:
        """Read the nested generations recorded on the shards held (all of a newly held shard's)."""
        fresh = [shard for shard in held if shard not in self._discovered]
        if not fresh and now < self._next_discovery:
            return
        self._next_discovery = now + self.settings.nested_poll
        up_to = self._store.newest_generation_id()
        seen: list[GenerationSeen] = []
        if fresh:
            seen.extend(self._store.generations_since(fresh, 0, up_to))
        known = [shard for shard in held if shard in self._discovered]
        if known and up_to > self._watermark:
            seen.extend(self._store.generations_since(known, self._watermark, up_to))
        self._watermark = max(self._watermark, up_to)
        self._discovered = set(held)
        for generation in seen:
            if NestedSpec.from_inputs(generation.inputs) is None:
                continue
            waiting = self._to_rebuild.get(generation.stack)
            if waiting is None or waiting.generation < generation.generation:
                self._to_rebuild[generation.stack] = generation
        for stack, generation in list(self._to_rebuild.items()):
            if generation.shard not in held or self._take_nested(generation):
                del self._to_rebuild[stack]

    def _take_nested(self, seen: GenerationSeen) -> bool:
        """Converge a nested generation recorded by its parent's coordinator; False: not yet."""
        run = self._runs.get(seen.stack)
        if run is not None and run.generation >= seen.generation:
            return True  # this worker recorded it (or a newer one) itself
        spec = NestedSpec.from_inputs(seen.inputs)
        assert spec is not None
        definition = None
        if seen.definition_digest == REMOVED and run is None and not self._store.count_records(seen.stack):
            return True  # gone already: nothing to converge
        if seen.definition_digest != REMOVED:
            root = self._runs.get(spec.lineage.root)
            if root is None or root.definition is None:
                return False  # this worker has not read the root's commit yet
            definition = rebuild(root.definition, spec.lineage)
            if definition is None or definition.digest() != seen.definition_digest:
                return False  # the root here is at another commit: wait for the one that matches
        if run is None:
            run = self._open_run(seen.stack, spec.policy.cloud)
        run.lineage = spec.lineage
        run.set_desired(
            seen.generation,
            seen.commit_sha,
            definition,
            spec.policy,
            group_member=spec.group_member,
            is_group=spec.is_group,
            batch=spec.batch,
        )
        self.remote.forget(seen.stack)
        return True

    # Reading ---------------------------------------------------------------------------------

    def report(self, stack: str) -> StackReport:
        """The stack's status at its newest commit, counts, and failures with reasons."""
        if stack in self._invalid:
            return self._invalid[stack]
        run = self._runs.get(stack)
        if run is not None:
            return run.report()
        state = self._store.read_stack(stack)
        if state is None:
            return StackReport(stack, StackStatus.PENDING, None, None)
        newest = self._store.newest_generation(stack)
        return StackReport(
            stack,
            state.status,
            newest.commit_sha if newest else None,
            state.status_generation,
        )

    def outputs(self, stack: str) -> Mapping[str, Any]:
        run = self._runs.get(stack)
        return run.outputs if run is not None else self._store.read_outputs(stack)

    def converge(self, stacks: Iterable[str], deadline: float) -> dict[str, StackReport]:
        """Run passes until every stack named settles (CONVERGED, FAILED, INVALID) or `deadline`."""
        names = list(stacks)
        while True:
            progress = self.step()
            if all(self._settled(name) for name in names) and not progress.busy:
                break
            now = self._clock.now()
            if now >= deadline or (not progress.busy and progress.next_wake is None):
                break  # out of time, or nothing left that could move
            self._wait(progress, deadline)
        return {name: self.report(name) for name in names}

    def _settled(self, stack: str) -> bool:
        """Whether `stack`'s report would say settled (without building it: a report counts resources)."""
        run = self._runs.get(stack)
        if stack in self._invalid or run is None:
            return self.report(stack).settled
        return run.status in SETTLED_STATUSES

    def wait_for_calls(self, timeout: float = 5.0) -> None:
        """Block (real time) until every provider call in flight has come back, or `timeout`."""
        flights = [flight for run in self._runs.values() for flight in run.in_flight.values() if flight.call]
        self._pool.wait_delivered([f.call for f in flights if f.call and not f.elsewhere], timeout)
        queued = [f.call for f in flights if f.call and f.elsewhere]
        if self._shared is not None and queued:
            end = time.monotonic() + timeout
            while not all(pending.delivered for pending in queued) and time.monotonic() < end:
                self._shared.calls.collect()
                time.sleep(REAL_WAIT_SLICE)

    def _wait(self, progress: Progress, deadline: float) -> None:
        """Until a call comes back or the next thing is due, whichever is first."""
        now = self._clock.now()
        wake = deadline if progress.next_wake is None else min(progress.next_wake, deadline)
        if progress.in_flight:
            timeout = min(max(wake - now, 0.0), REAL_WAIT_SLICE)
            self._pool.deliver(timeout=timeout, gather=min(GATHER, timeout))
        elif not progress.busy and wake > now:
            self._sleeper.sleep(min(wake - now, self.settings.max_sleep))

    # Nested stacks ---------------------------------------------------------------------------

    def run_of(self, stack: str) -> StackRun | None:
        """The stack's coordinator here, unless the stack is a nested one another worker holds."""
        if self.remote.watches(stack):
            return None
        return self._runs.get(stack)

    def submit_nested(
        self,
        child: str,
        commit: str,
        definition: DesiredStack,
        policy: Policy,
        *,
        group_member: bool,
        is_group: bool,
        batch: BatchPolicy | None = None,
        lineage: Lineage | None = None,
    ) -> int:
        return self._submit(
            child,
            commit,
            definition,
            policy,
            group_member=group_member,
            is_group=is_group,
            batch=batch,
            lineage=lineage,
        )

    def remove_nested(self, child: str) -> bool:
        """Converge a stack (nested or not) to nothing; True once it holds no resources any more.

        A nested stack's removal is a generation of its own (digest `REMOVED`), so whichever
        worker holds its shard, now or after a takeover, converges it to nothing and never
        rebuilds it from an older generation.
        """
        removal = self._record_removal(child) if "/" in child else None
        if "/" in child and self._shard_of(child) not in self._held:
            if self._store.count_records(child):
                return False
            self.remote.forget(child)
            return True
        run = self._runs.get(child)
        if run is None:
            if not self._store.count_records(child):
                return True
            newest = self._store.newest_generation(child)
            cloud = str(newest.inputs.get("cloud", "sim")) if newest is not None else "sim"
            run = self._open_run(child, cloud)
        if not run.removing:
            generation = run.generation if removal is None else removal
            run.set_desired(generation, run.commit or "", None, run.policy)
        if not run.records and not run.retiring and not run.in_flight:
            del self._runs[child]
            return True
        return False

    def _record_removal(self, child: str) -> int | None:
        """The generation asking nested stack `child` to go away, recorded once (None: never made)."""
        newest = self._store.newest_generation(child)
        if newest is None:
            return None
        if newest.definition_digest == REMOVED:
            return newest.generation
        outcome = self._store.record_generation(
            child, commit_sha=newest.commit_sha, definition_digest=REMOVED, inputs=newest.inputs
        )
        return outcome.generation.generation


class _NestedStacksOf:
    """The engine as its coordinators see it for nested stacks."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def submit_nested(
        self, child: str, commit: str, definition: DesiredStack, policy: Policy, **options: Any
    ) -> int:
        return self._engine.submit_nested(child, commit, definition, policy, **options)

    def nested_report(self, child: str) -> StackReport | None:
        if self._engine.remote.watches(child):
            return self._engine.remote.report(child)
        run = self._engine.run_of(child)
        return None if run is None else run.report()

    def nested_outputs(self, child: str) -> Mapping[str, Any]:
        if self._engine.remote.watches(child):
            return self._engine.remote.outputs(child)
        return self._engine.outputs(child)

    def nested_members(self, child: str) -> Mapping[str, Mapping[str, Any]]:
        if self._engine.remote.watches(child):
            return self._engine.remote.members(child)
        run = self._engine.run_of(child)
        if run is None:
            return {}
        order = list(run.definition.resources) if run.definition is not None else list(run.records)
        members: dict[str, Mapping[str, Any]] = {}
        for name in order:
            state = run.records.get(name)
            if state is not None:
                members[name] = {"physical_id": state.physical_id, "attributes": state.attributes}
        return members

    def remove_nested(self, child: str) -> bool:
        return self._engine.remove_nested(child)
