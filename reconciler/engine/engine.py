"""The engine: every stack this worker holds, converged one non-blocking pass at a time.

`submit` hands a stack its newest desired generation at any moment (supersede, never block);
`step` runs one pass over every held stack and writes what the pass learned in ONE transaction,
each shard's part under its fence; `wait` blocks until a call comes back or the next deadline a
pass reported. `EngineLoop` alternates the two for every driver: `converge` (what `reconciler
apply` and the benchmarks use) and the daemon's converge loop.
Provider calls run on a bounded thread pool; native types run inline. Nested stacks (template
resources, groups, chains, OS::Heat::Stack) are stacks of their own, with their own records and
shard, made here when their parent's coordinator asks in its pass's result (a coordinator never
calls up into the engine); when another worker holds a child's shard, the child crosses the store
instead (`nested_handoff`): this engine finds, on the shards it holds, the nested generations
other workers' coordinators recorded, and rebuilds them.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import random as random_module
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from reconciler.engine.adoption import adoption_problems
from reconciler.engine.call_pool import CallPool, PendingCall
from reconciler.engine.deferred_submissions import INVALID, SUBMIT, DeferredSubmissions
from reconciler.engine.desired import DesiredGeneration, DesiredStack, Policy
from reconciler.engine.drift_tally import DriftTally
from reconciler.engine.engine_loop import EngineLoop
from reconciler.engine.group_scaling import ScalingLog
from reconciler.engine.held_shards import HeldShards
from reconciler.engine.nested_handoff import REMOVED, NestedDiscovery, RemoteChildren, rebuild
from reconciler.engine.pass_result import ChildRequest, PassResult, RemoveChild, SubmitChild
from reconciler.engine.pass_writing import gather_pass
from reconciler.engine.preflight import preflight_problems
from reconciler.engine.progress import Progress
from reconciler.engine.provider_set import CloudProviders
from reconciler.engine.random_source import RandomSource
from reconciler.engine.record_rows import state_from_record
from reconciler.engine.report import SETTLED_STATUSES, Failure, StackReport
from reconciler.engine.retry_requests import RetryRequests
from reconciler.engine.run_context import RunContext
from reconciler.engine.run_spec import RunSpec, retained_inputs
from reconciler.engine.scaling_signals import ScalingSignals
from reconciler.engine.settings import EngineSettings
from reconciler.engine.shared_calls import SharedCalls, SharedDispatch
from reconciler.engine.signals_kept import SignalsKept
from reconciler.engine.stack_run import Desire, RunProgress, StackRun
from reconciler.engine.stack_status import StackStatus
from state.errors import CommitOutcomeUnknown, DatabaseUnavailable, StaleLease, StateError
from state.fencing import Fence
from state.generation_batches import GenerationAsked
from state.records import RecordedResource
from state.stacks import GenerationOutcome, GenerationSeen, NewerGeneration, NewGeneration
from state.store import Store
from timekeeping import Clock, InterruptibleSleeper, Sleeper

REAL_WAIT_SLICE = 0.05  # the longest real wait for a call to come back while something else may be due
GATHER = 0.02  # once a call is back, how long others may join it before the pass (a pass has a fixed cost)
MAX_EXTRA_ROUNDS = 16  # passes repeated within one step while nested stacks hand results up
LOST_EPOCH = -1  # the epoch remembered for a stack whose shard this worker lost
# The store's answers that mean "the database is away for now": the shard pauses and is re-read.
STORE_AWAY = (DatabaseUnavailable, CommitOutcomeUnknown)
# Whatever a write on behalf of a shard may answer that stops acting on it (for now or for good).
SHARD_STOPPED = (StaleLease, *STORE_AWAY)

LOG = logging.getLogger(__name__)


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
        self._scaling = ScalingSignals(store.scaling(), self.settings.scaling_poll)
        self._signals = SignalsKept()  # told by `resource_signalled`, taken at the next pass
        self._context = RunContext(
            self.settings,
            random or random_module.Random(),
            self._pool,
            _ChildReportsOf(self),
            self._shared,
            _LeaseGuards(self),
            group_sizes=self._scaling.store.group_sizes,
            signalled_lately=self._signals.lately,
        )
        self._runs: dict[str, StackRun] = {}
        self._epochs: dict[str, int] = {}
        self._invalid: dict[str, StackReport] = {}
        self._tallies: dict[str, DriftTally] = {}  # root stack -> drift repairs of its whole tree
        self._scaling_logs: dict[str, ScalingLog] = {}  # root stack -> scalings of its whole tree
        self._abandoned: dict[str, StackReport] = {}  # stacks abandoned: not managed, nothing done
        self._held: Mapping[int, int] = {}  # the shards held at the current (or last) pass
        self._shards: dict[str, int] = {}  # a stack's shard never changes: asked once
        self.remote = RemoteChildren(store, self.settings.nested_poll)
        self._discovery = NestedDiscovery(store, self.settings.nested_poll)
        self._ended: set[tuple[str, int]] = set()  # superseded generations recorded in the store
        self._dropped_at: dict[str, float] = {}  # runs to rebuild, waiting for their calls out since
        self._retry_requests = RetryRequests(store, self.settings.retry_poll)
        # nested stacks whose status moved at the last pass: (parent, resource, converged again)
        self._children_moved: list[tuple[str, str, bool]] = []
        self._deferred = DeferredSubmissions()
        self._rung = threading.Event()  # set by `signal_arrived`: the wait between passes ends

    def close(self) -> None:
        """Stop the pool (calls in flight finish; nothing new starts); unclaimed queued calls withdrawn.

        Records held back to be written soon (creates back while their resources build) are
        written first, fenced as every write: the next owner then needs no marker search for them.
        """
        held = self._held
        results = {
            run.name: run.take_result(math.inf)
            for run in self._runs.values()
            if run.holds_writes_for_later()
            and run.shard in held
            and self._epochs.get(run.name) == held[run.shard]
        }
        runs = [self._runs[name] for name in results]
        with contextlib.suppress(StateError):
            self._write_pass(runs, results, held, statuses=False)
        self._pool.shutdown(cancel_pending=True)
        if self._shared is not None:
            # if the store is away the items stay; their stale lease keeps any executor from sending them
            with contextlib.suppress(StateError):
                self._shared.calls.withdraw_all()

    # Desired state ---------------------------------------------------------------------------

    def submit(self, stack: str, desired: DesiredGeneration) -> int | None:
        """Make `desired` the stack's newest generation (when its definition changed); its number.

        An abandoned stack is not taken back unless `desired` adopts it (0, and it stays ABANDONED);
        adopt data is taken only into a stack with no records yet, and only whole (INVALID otherwise).
        None when the database is away: the submission is kept and made on a later pass.
        """
        spec = desired.spec
        policy = Policy(
            spec.cloud,
            spec.self_heal,
            spec.prune,
            float(spec.observe_interval),
            frozenset(getattr(spec, "require_approval", ())),
            spec.state,
        )
        self._invalid.pop(stack, None)
        self._deferred.drop(stack, SUBMIT, INVALID)
        submit = partial(self._submit_desired, stack, desired, policy)
        try:
            return submit()
        except STORE_AWAY as error:
            LOG.warning("store away: submission of stack %s kept for a later pass: %s", stack, error)
            self._deferred.keep(SUBMIT, stack, submit)
            return None

    def _submit_desired(self, stack: str, desired: DesiredGeneration, policy: Policy) -> int:
        """`submit`'s work: an abandoned stack stays so unless adopted; adopt data checked whole."""
        spec = desired.spec
        abandoned = self._is_abandoned(stack)
        if abandoned and desired.adopt is None:
            self._forget_runs_of(stack)
            self._abandoned[stack] = abandoned_report(stack, desired.commit)
            return 0
        adopt = None
        if desired.adopt is not None and (abandoned or not self._store.count_records(stack)):
            problems = adoption_problems(
                desired.adopt, desired.definition, self._providers.for_cloud(spec.cloud)
            )
            if problems:
                if abandoned:  # reported, but the store keeps it ABANDONED: nothing may be made for it
                    failures = tuple(Failure("adopt", problem) for problem in problems)
                    self._invalid[stack] = StackReport(
                        stack, StackStatus.INVALID, desired.commit, None, failures=failures
                    )
                else:
                    self.invalid(stack, desired.commit, problems)
                return 0
            adopt = desired.adopt.resources
            self._forget_runs_of(stack)
            if abandoned:
                self._store.end_abandonment(stack, f"adopted from {desired.adopt.source}")
        refusals = preflight_problems(desired.definition, self._providers.for_cloud(spec.cloud), spec.cloud)
        if refusals:
            self.invalid(stack, desired.commit, map(str, refusals))  # refused before anything is built
            return 0
        self._abandoned.pop(stack, None)
        generation = self._submit(
            stack, desired.commit, desired.definition, RunSpec.root(stack, policy, adopt)
        )
        run = self._runs.get(stack)
        if run is not None and run.at_generation(generation):
            run.recommitted(desired.commit)  # a definition already converged to: at this commit now
        return generation

    def approve(self, stack: str, commit: str) -> bool:
        """`commit` of `stack` is approved: its replacements and deletions (nested stacks' too) go
        ahead. False when the stack is not at that commit here (nothing to approve)."""
        runs = [
            run
            for name, run in self._runs.items()
            if (name == stack or name.startswith(f"{stack}/")) and run.commit == commit
        ]
        for run in runs:
            run.approve()
        return bool(runs)

    def _forget_runs_of(self, stack: str) -> None:
        """Drop what memory holds of `stack` and its nested stacks: adoption starts from the records."""
        for name in [name for name in self._runs if name == stack or name.startswith(f"{stack}/")]:
            del self._runs[name]
            self._epochs.pop(name, None)

    def _is_abandoned(self, stack: str) -> bool:
        state = self._store.read_stack(stack)
        return state is not None and state.status is StackStatus.ABANDONED

    def invalid(self, stack: str, commit: str, reasons: Iterable[str]) -> None:
        """The commit's template is wrong: report INVALID and keep maintaining the last good generation.

        Like every write, the stack's status row is written only by its shard's holder, fenced by
        the lease epoch; a worker that does not hold the shard (or lost it) reports INVALID in its
        own report and leaves the row to the holder, which is told the same commit.
        """
        reasons = tuple(reasons)
        failures = tuple(Failure("template", reason) for reason in reasons)
        self._invalid[stack] = StackReport(stack, StackStatus.INVALID, commit, None, failures=failures)
        self._deferred.drop(stack, INVALID)
        note = partial(self._note_invalid, stack, commit, reasons)
        try:
            note()
        except STORE_AWAY as error:
            LOG.warning("store away: INVALID of stack %s kept for a later pass: %s", stack, error)
            self._deferred.keep(INVALID, stack, note)

    def _note_invalid(self, stack: str, commit: str, reasons: tuple[str, ...]) -> None:
        shard = self._store.ensure_stack(stack).shard
        epoch = self._leases.held().get(shard)
        if epoch is not None:
            try:
                self._store.set_status(
                    stack, StackStatus.INVALID, reasons=reasons, fence=Fence(shard, epoch), commit=commit
                )
            except StaleLease:
                self._drop_shard(shard)

    def _submit(
        self, stack: str, commit: str, definition: DesiredStack, spec: RunSpec, *, fence: Fence | None = None
    ) -> int:
        outcome = self._store.record_generation(
            stack,
            commit_sha=commit,
            definition_digest=spec.generation_digest(definition),
            inputs=spec.generation_inputs(len(definition.resources)),
            fence=fence,
        )
        return self._take_generation(stack, definition, spec, outcome)

    def _submit_children(self, requests: Sequence[SubmitChild], fence: Fence) -> list[int]:
        """`_submit` of many nested stacks: their generations recorded in one transaction, and the
        records of those made here read in one query."""
        asked = [
            GenerationAsked(
                request.child,
                request.commit,
                request.spec.generation_digest(request.definition),
                request.spec.generation_inputs(len(request.definition.resources)),
            )
            for request in requests
        ]
        recorded = self._store.record_generations(asked, fence=fence)
        for item in recorded:
            self._shards.setdefault(item.stack.name, item.stack.shard)
        self._open_runs(
            {
                request.child: request.spec.policy.cloud
                for request in requests
                if request.child not in self._runs and self._shard_of(request.child) in self._held
            }
        )
        return [
            self._take_generation(request.child, request.definition, request.spec, item.outcome)
            for request, item in zip(requests, recorded, strict=True)
        ]

    def _take_generation(
        self, stack: str, definition: DesiredStack, spec: RunSpec, outcome: GenerationOutcome
    ) -> int:
        """The stack's run moves to the generation recorded (a nested stack held elsewhere is
        watched instead); its number."""
        nested = spec.lineage.nested
        generation = outcome.generation
        if nested and self._shard_of(stack) not in self._held:
            self.remote.watch(stack, definition)  # its holder rebuilds it from the lineage
            return generation.generation
        self.remote.forget(stack)
        self._abandoned.pop(stack, None)
        run = self._runs.get(stack)
        if run is None:
            run = self._open_run(stack, spec.policy.cloud)
        adopting = spec.adopt is not None and spec.adopt != run.spec.adopt  # not known when it was made
        if isinstance(outcome, NewGeneration) or not run.at_generation(generation.generation) or adopting:
            run.set_desired(Desire(generation.generation, generation.commit_sha, definition, spec))
        root = self._runs.get(spec.lineage.root)
        if nested and root is not None and root.approved and root.commit == run.commit:
            run.approve()  # made after its root's commit was approved: approved with it
        return generation.generation

    def _shard_of(self, stack: str) -> int:
        shard = self._shards.get(stack)
        if shard is None:
            shard = self._shards[stack] = self._store.ensure_stack(stack).shard
        return shard

    def _open_runs(self, clouds: Mapping[str, str]) -> None:
        """A run for each stack named (stack -> its cloud), their records read in one query."""
        for stack, records in self._store.read_records_of(list(clouds)).items():
            self._open_run(stack, clouds[stack], records)

    def _open_run(
        self, stack: str, cloud: str, records: Iterable[RecordedResource] | None = None
    ) -> StackRun:
        """The stack's run, loaded from its records (read here unless given)."""
        shard = self._shard_of(stack)
        run = StackRun(stack, shard, self._providers.for_cloud(cloud), self._context)
        run.summary.tally = self._tallies.setdefault(stack.split("/", 1)[0], DriftTally())
        run.scaling.log = self._scaling_logs.setdefault(stack.split("/", 1)[0], ScalingLog())
        if records is None:
            records = self._store.read_records(stack)
        run.load(state_from_record(record) for record in records)
        self._runs[stack] = run
        # Records read while another worker holds the shard may be stale by the time this one
        # acts on it: its first pass under a lease then rebuilds from the records.
        self._epochs[stack] = self._leases.held().get(shard, LOST_EPOCH)
        return run

    def _reopened(self, run: StackRun, now: float) -> StackRun | None:
        """The run rebuilt from the records, once no call of the former one can still land (None: not yet).

        A marker search while a create is still out would not find what it is about to make.
        """
        if run.has_calls_out():
            since = self._dropped_at.setdefault(run.name, now)
            if now - since < self.settings.call_deadline:
                return None
        self._dropped_at.pop(run.name, None)
        return self._reopen(run)

    def _reopen(self, run: StackRun) -> StackRun | None:
        """After a takeover: forget what memory held, rebuild from the records, same desired state.

        A stack abandoned meanwhile (`reconciler abandon` moved the shard's epoch on) is dropped.
        """
        if self._is_abandoned(run.name):
            del self._runs[run.name]
            self._abandoned.setdefault(run.name, abandoned_report(run.name, run.commit))
            return None
        fresh = run.rebuilt(state_from_record(record) for record in self._store.read_records(run.name))
        fresh.summary.tally = run.summary.tally
        self._runs[run.name] = fresh
        return fresh

    # The pass --------------------------------------------------------------------------------

    def step(self) -> Progress:
        """One non-blocking pass over every held stack; says when the next one is needed.

        When the database goes away mid-pass (or a commit's answer is lost), the pass stops there:
        every shard it was acting on is rebuilt from its records on a later pass, as after a lost
        lease, and nothing is marked FAILED for it.
        """
        try:
            return self._pass()
        except STORE_AWAY as error:
            LOG.warning("pass stopped, shards to be re-read from the store: %s", error)
            for shard in self._held:
                self._drop_shard(shard)
            return Progress(
                in_flight=self._pool.calls_out(),
                busy=False,
                next_wake=self._clock.now() + self.settings.store_retry,
            )

    def _pass(self) -> Progress:
        held = self._leases.held()
        self._log_shards_gone(held)
        self._held = held
        self._retry_deferred()
        self._pool.deliver()
        acting: list[StackRun] = []
        idle: list[RunProgress] = []  # of the runs held with nothing to do at this pass: not stepped
        results: dict[str, PassResult] = {}
        now = self._clock.now()
        self._begin_shared(held, now)
        self._discover(held, now)
        self._take_retry_requests(held, now)
        self._scaling.take(self._runs, held, now, self._drop_shard)
        self._take_signals_kept(now)
        for parent_name, resource in self.remote.poll(now):
            parent = self._runs.get(parent_name)
            if parent is not None:
                parent.nested_changed(resource)
        self._tell_parents()
        self._first_steps(held, now, acting, idle, results)
        for _ in range(MAX_EXTRA_ROUNDS):  # a child settled or work became ready: no need to wait
            movable = [run for run in acting if self._epochs.get(run.name) != LOST_EPOCH and run.can_move()]
            if not movable:
                break
            for run in movable:
                results[run.name] = results[run.name].then(self._step_run(run, now))
        self._write_pass(acting, results, held)
        self._scaling.forget_overridden(acting, held, self._drop_shard)
        self._scaling.start_cooldowns(acting, held, now, self._drop_shard)
        for run in acting:
            # A run whose shard was just lost sends nothing more: its intents were not written,
            # and whoever holds the shard now rebuilds it from the records.
            if run.name in self._runs and self._epochs.get(run.name) != LOST_EPOCH:
                run.ids_assigned()
        self._flush_shared()
        self._notify_parents(acting, results)
        return self._progress(acting, idle)

    def _first_steps(
        self,
        held: Mapping[int, int],
        now: float,
        acting: list[StackRun],
        idle: list[RunProgress],
        results: dict[str, PassResult],
    ) -> None:
        """The pass's first step of every held run with something to do (`acting`); the progress
        of the others is `idle`. Nested stacks submitted meanwhile get their first step in this
        pass too."""
        stepped: set[str] = set()
        while True:  # nested stacks submitted during the pass get their first pass in it too
            fresh = [run for name, run in list(self._runs.items()) if name not in stepped]
            if not fresh:
                break
            for known in fresh:
                stepped.add(known.name)
                epoch = held.get(known.shard)
                if epoch is None:
                    continue
                run = known if self._epochs.get(known.name) in (None, epoch) else self._reopened(known, now)
                if run is None:
                    continue  # the calls its former run sent are still out: rebuilt once they are back
                self._epochs[run.name] = epoch
                resting = run.idle_progress(now)
                if resting is not None:
                    idle.append(resting)
                    continue
                acting.append(run)
                results[run.name] = self._step_run(run, now)

    def retry_failed(
        self, stack: str | None = None, resource: str | None = None, *, escalated: bool = False
    ) -> int:
        """Retry at once the FAILED resources of `stack` (every stack when None), or only `resource`;
        escalated ones (waiting for a person) too when `escalated`. How many are decided again."""
        now = self._clock.now()
        runs = (
            list(self._runs.values()) if stack is None else [self._runs[stack]] if stack in self._runs else []
        )
        return sum(run.retry_failed(resource, now, escalated=escalated) for run in runs)

    def _take_retry_requests(self, held: Mapping[int, int], now: float) -> None:
        """Act on the retry requests (`reconciler retry`, from any host) waiting on the shards held."""
        requests = self._retry_requests.due(held, now)
        for request in requests:
            retried = self.retry_failed(request.stack, request.resource, escalated=True)
            LOG.info("retry of %s%s asked: %d failed resource(s) decided again", request.stack,
                     f" {request.resource}" if request.resource else "", retried)  # fmt: skip
        if requests:
            self._retry_requests.done(requests)

    def _retry_deferred(self) -> None:
        """What the store could not take between passes, first (the rest of the pass goes on)."""
        if not self._deferred:
            return
        try:
            self._deferred.retry()
        except STORE_AWAY as error:
            kept = len(self._deferred)
            LOG.warning("store away: %d submissions still kept for a later pass: %s", kept, error)

    def _step_run(self, run: StackRun, now: float) -> PassResult:
        """One pass of `run`, and the engine's answers to what it asked for its nested stacks.

        A child's generation (made or removed) is recorded under the parent's lease: a parent run
        whose lease was lost meanwhile records nothing after what its successor decided.
        """
        result = run.step(now)
        fence = Fence(run.shard, self._epochs.get(run.name, LOST_EPOCH))
        while result.child_requests:
            try:
                self._answer_children(run, result.child_requests, fence)
            except StaleLease as error:
                self._drop_shard(run.shard, error)
                return result
            result = result.then(run.answered(now))
        return result

    def _answer_children(self, run: StackRun, requests: Sequence[ChildRequest], fence: Fence) -> None:
        """In the order asked: consecutive submissions recorded together, removals one by one."""
        for _kind, group in itertools.groupby(requests, key=type):
            asked = list(group)
            submits = [request for request in asked if isinstance(request, SubmitChild)]
            for request, generation in zip(submits, self._submit_children(submits, fence), strict=True):
                run.child_submitted(request.resource, generation)
            for removal in (request for request in asked if isinstance(request, RemoveChild)):
                if self.remove_nested(removal.child, retain=removal.retain, fence=fence):
                    run.child_removed(removal.child)

    def _begin_shared(self, held: Mapping[int, int], now: float) -> None:
        if self._shared is not None:
            self._shared.begin_pass(held, now)  # outcomes of queued calls delivered, like the pool's

    def _flush_shared(self) -> None:
        if self._shared is not None:
            self._shared.calls.flush()  # the calls queued for other workers this pass, in one batch

    def _notify_parents(self, runs: list[StackRun], results: Mapping[str, PassResult]) -> None:
        """A nested stack that converged again after a repair tells its parent to read its values;
        any other new status of it is told too (a parent that failed because of it decides again).
        Told at the start of the next pass, so the parent's pass summarises what it then does."""
        for run in runs:
            result = results[run.name]
            if result.status is not None and "/" in run.name:
                parent_name, _, resource = run.name.rpartition("/")
                self._children_moved.append((parent_name, resource, result.converged_again))

    def _tell_parents(self) -> None:
        moved, self._children_moved = self._children_moved, []
        for parent_name, resource, converged in moved:
            parent = self._runs.get(parent_name)
            if parent is not None:
                parent.nested_changed(resource, converged=converged)

    def _write_pass(
        self,
        runs: list[StackRun],
        results: Mapping[str, PassResult],
        held: Mapping[int, int],
        *,
        statuses: bool = True,
    ) -> None:
        """Every shard's records, and (with `statuses`) its stacks' statuses, outputs and superseded
        generations, in one transaction, each shard under its fence; the ids the store assigns are
        set on the records. A shard refused (stale lease) or left unwritten (store away) is dropped."""
        gathered = gather_pass(
            runs,
            results,
            held,
            reports_status=(lambda name: name in self._runs) if statuses else (lambda _name: False),
            ended=self._ended,
        )
        if not gathered.writes:
            return
        try:
            written = self._store.write_pass(list(gathered.writes.values()))
        except STORE_AWAY as error:
            for shard in gathered.writes:
                self._drop_shard(shard, error)
            return
        for fence in written.stale:
            self._drop_shard(fence.shard, StaleLease(fence.shard, fence.epoch))
        self._ended.update(gathered.taken_back(written))

    def _drop_shard(self, shard: int, why: StateError | None = None) -> None:
        """The lease is gone: stop acting on its stacks; whoever holds it now carries on."""
        names = [name for name, run in self._runs.items() if run.shard == shard]
        for name in names:
            self._epochs[name] = LOST_EPOCH  # forces a rebuild from records if the shard comes back
        if isinstance(why, StaleLease) and names:
            LOG.warning(
                "lease lost: worker %s stops acting on shard %d (a write was refused: %s); stacks %s",
                self.worker_id,
                shard,
                why,
                _some(names),
            )

    def _log_shards_gone(self, held: Mapping[int, int]) -> None:
        """Shards held at the last pass and not now (lease lost, or handed back): which stacks stop here."""
        gone = set(self._held) - set(held)
        if not gone:
            return
        for shard in sorted(gone):
            names = [name for name, run in self._runs.items() if run.shard == shard]
            if names:
                LOG.info(
                    "shard %d no longer held by worker %s (lease lost or handed back): stacks %s left to "
                    "its next holder",
                    shard,
                    self.worker_id,
                    _some(names),
                )

    def _progress(self, runs: list[StackRun], idle: list[RunProgress]) -> Progress:
        progresses = [run.progress() for run in runs] + idle
        wakes = [progress.next_wake for progress in progresses if progress.next_wake is not None]
        scaling = self._scaling.next_read_at()
        if scaling is not None:
            wakes.append(scaling)
        polled = self.remote.next_poll_at()
        if polled is not None and self._awaits_remote(runs):
            wakes.append(polled)
        return Progress(
            in_flight=sum(progress.in_flight for progress in progresses),
            busy=bool(self._children_moved) or any(progress.busy for progress in progresses),
            next_wake=min(wakes) if wakes else None,
        )

    def _awaits_remote(self, runs: list[StackRun]) -> bool:
        return any(self.remote.watches(child) for run in runs for child in run.waiting_on_children())

    # Nested stacks held here, made elsewhere -------------------------------------------------

    def _discover(self, held: Mapping[int, int], now: float) -> None:
        """Take the nested generations other workers' coordinators recorded on the shards held."""
        for generation in self._discovery.waiting(held, now):
            if self._take_nested(generation):
                self._discovery.taken(generation.stack)

    def _take_nested(self, seen: GenerationSeen) -> bool:
        """Converge a nested generation recorded by its parent's coordinator; False: not yet."""
        run = self._runs.get(seen.stack)
        if run is not None and run.desire().generation >= seen.generation:
            return True  # this worker recorded it (or a newer one) itself
        spec = RunSpec.from_inputs(seen.inputs)
        assert spec is not None
        definition = None
        if seen.definition_digest == REMOVED and run is None and not self._store.count_records(seen.stack):
            return True  # gone already: nothing to converge
        if seen.definition_digest != REMOVED:
            root = self._runs.get(spec.lineage.root)
            root_definition = None if root is None else root.desire().definition
            if root_definition is None:
                return False  # this worker has not read the root's commit yet
            definition = rebuild(root_definition, spec.lineage)
            if definition is None or spec.generation_digest(definition) != seen.definition_digest:
                return False  # the root here is at another commit: wait for the one that matches
        if run is None:
            run = self._open_run(seen.stack, spec.policy.cloud)
        run.set_desired(Desire(seen.generation, seen.commit_sha, definition, spec))
        self.remote.forget(seen.stack)
        return True

    # Reading ---------------------------------------------------------------------------------

    def report(self, stack: str) -> StackReport:
        """The stack's status at its newest commit, counts, and failures with reasons."""
        if stack in self._invalid:
            return self._invalid[stack]
        if stack in self._abandoned:
            return self._abandoned[stack]
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
        run = self.run_of(stack) if "/" in stack else self._runs.get(stack)
        if run is None and self.remote.watches(stack):
            return self.remote.outputs(stack)
        return run.outputs() if run is not None else self._store.read_outputs(stack)

    def converge(
        self, stacks: Iterable[str], deadline: float, on_pass: Callable[[], None] | None = None
    ) -> dict[str, StackReport]:
        """Run passes until every stack named settles (CONVERGED, FAILED, INVALID) or `deadline`;
        `on_pass` is called after each pass (a progress display)."""
        names = list(stacks)

        def settled(progress: Progress) -> bool:
            if on_pass is not None:
                on_pass()
            return all(self._settled(name) for name in names) and not progress.busy

        EngineLoop(self, self._clock, self.step).run_until(settled, deadline)
        return {name: self.report(name) for name in names}

    def _settled(self, stack: str) -> bool:
        """Whether `stack`'s report would say settled (without building it: a report counts resources)."""
        run = self._runs.get(stack)
        if stack in self._invalid or stack in self._abandoned or run is None:
            return self.report(stack).settled
        return run.status() in SETTLED_STATUSES

    def wait_for_calls(self, timeout: float = 5.0) -> None:
        """Block (real time) until every provider call in flight has come back, or `timeout`."""
        local: list[PendingCall] = []
        queued: list[PendingCall] = []
        for run in self._runs.values():
            here, elsewhere = run.calls_out()
            local.extend(here)
            queued.extend(elsewhere)
        self._pool.wait_delivered(local, timeout)
        if self._shared is not None and queued:
            end = time.monotonic() + timeout
            while not all(pending.delivered for pending in queued) and time.monotonic() < end:
                self._shared.calls.collect()
                time.sleep(REAL_WAIT_SLICE)

    def wait(self, progress: Progress, until: float) -> None:
        """Until a call comes back or the next thing the pass reported is due (`until` at the latest)."""
        now = self._clock.now()
        wake = until if progress.next_wake is None else min(progress.next_wake, until)
        if progress.in_flight:
            timeout = min(max(wake - now, 0.0), REAL_WAIT_SLICE)
            self._pool.deliver(timeout=timeout, gather=min(GATHER, timeout))
        elif not progress.busy and wake > now:
            self._doze(min(wake - now, self.settings.max_sleep))

    def _doze(self, seconds: float) -> None:
        if isinstance(self._sleeper, InterruptibleSleeper):
            if self._sleeper.sleep_unless(self._rung, seconds):
                self._rung.clear()
        else:
            self._sleeper.sleep(seconds)

    def resource_signalled(self, waiters: Collection[str] | None = None) -> None:
        """A signal a resource waits for was kept (a deployment's result, a handle's signal)
        (thread-safe): `waiters`, the physical ids of the resources waiting for it (None: any
        resource waiting for a signal), are observed at the next pass, and the wait before that
        pass ends now."""
        self._signals.tell(waiters)
        self._rung.set()

    def _take_signals_kept(self, now: float) -> None:
        taken = self._signals.take(now)
        if taken is None:
            return
        waiters, anyone = taken
        for run in self._runs.values():
            run.readiness.signals_kept(now, None if anyone else waiters)

    def signal_arrived(self) -> None:
        """A scaling signal was kept for a stack this process may hold (thread-safe): its signals
        are read at the next pass, and the wait before that pass ends now."""
        self._scaling.read_soon()
        self._rung.set()

    def shards_with_calls_out(self) -> frozenset[int]:
        """The shards this worker has cloud calls out on: not to be handed over before they are back.

        Asked by the lease loop, from its own thread: reads a copy of the runs.
        """
        return frozenset(run.shard for run in list(self._runs.values()) if run.has_calls_out())

    # Nested stacks ---------------------------------------------------------------------------

    def run_of(self, stack: str) -> StackRun | None:
        """The stack's coordinator here, unless the stack is a nested one another worker holds.

        A nested stack converged here whose shard this worker no longer holds is handed over: its
        run is dropped and the child watched in the store, where its new holder writes its status.
        """
        if self.remote.watches(stack):
            return None
        run = self._runs.get(stack)
        if run is not None and "/" in stack and run.shard not in self._held:
            del self._runs[stack]
            self._epochs.pop(stack, None)
            self.remote.watch(stack, run.desire().definition)
            return None
        return run

    def remove_nested(self, child: str, *, retain: bool = False, fence: Fence | None = None) -> bool:
        """Converge a stack (nested or not) to nothing; True once it holds no resources any more
        (or once a newer generation wants the nested stack again: its removal is then over).

        A nested stack's removal is a generation of its own (digest `REMOVED`), so whichever
        worker holds its shard, now or after a takeover, converges it to nothing and never
        rebuilds it from an older generation. `fence` is the parent's lease: a stale one raises
        `StaleLease` and records no removal.
        """
        removal = self._record_removal(child, fence, retain=retain) if "/" in child else None
        if isinstance(removal, WantedAgain):
            return True
        return self._removed(child, removal, retain=retain)

    def _removed(self, child: str, removal: int | None, *, retain: bool) -> bool:
        """Whether `child` holds nothing any more, converging it to nothing (at `removal`) meanwhile."""
        if "/" in child and self._shard_of(child) not in self._held:
            if self._store.count_records(child):
                return False
            self.remote.forget(child)
            return True
        run = self._runs.get(child)
        if run is None:
            if not self._store.count_records(child):
                self._forget_abandonment(child)
                return True
            newest = self._store.newest_generation(child)
            cloud = str(newest.inputs.get("cloud", "sim")) if newest is not None else "sim"
            run = self._open_run(child, cloud)
        run.remove(run.desire().generation if removal is None else removal, retain=retain)
        if run.empty():
            del self._runs[child]
            return True
        return False

    def _forget_abandonment(self, stack: str) -> None:
        """A stack removed after it was abandoned: declared again later, it is made anew."""
        if "/" in stack or not self._is_abandoned(stack):
            return
        self._abandoned.pop(stack, None)
        shard = self._shard_of(stack)
        epoch = self._leases.held().get(shard)
        if epoch is not None:
            with contextlib.suppress(*SHARD_STOPPED):
                reason = "removed from reconciler.yaml after it was abandoned"
                self._store.set_status(
                    stack, StackStatus.PENDING, reasons=(reason,), fence=Fence(shard, epoch)
                )

    def _record_removal(self, child: str, fence: Fence | None, *, retain: bool) -> int | WantedAgain | None:
        """The generation asking nested stack `child` to go away, recorded once (None: never made).

        Recorded only right after the generation it was decided from: one recorded meanwhile
        (a commit growing the group back) wins, and the removal is over. Its inputs say whether the
        child's resources are retained, for whichever worker removes it.
        """
        newest = self._store.newest_generation(child)
        if newest is None:
            return None
        if newest.definition_digest == REMOVED:
            return newest.generation
        inputs = retained_inputs(newest.inputs) if retain else newest.inputs
        outcome = self._store.record_generation(
            child,
            commit_sha=newest.commit_sha,
            definition_digest=REMOVED,
            inputs=inputs,
            fence=fence,
            after=newest.generation,
        )
        if isinstance(outcome, NewerGeneration) and outcome.generation.definition_digest != REMOVED:
            return WantedAgain(outcome.generation.generation)
        return outcome.generation.generation


ABANDONED_REASON = (
    "abandoned: not managed; its resources are left in the cloud as they are. Adopt it "
    "(`adopt_from:` or `reconciler adopt`) to manage it again, or remove it from reconciler.yaml"
)


def abandoned_report(stack: str, commit: str | None) -> StackReport:
    return StackReport(
        stack, StackStatus.ABANDONED, commit, None, failures=(Failure("stack", ABANDONED_REASON),)
    )


@dataclass(frozen=True)
class WantedAgain:
    """A nested stack being removed got a newer generation meanwhile: its removal is not to be recorded."""

    generation: int


class _LeaseGuards:
    """A call goes out only while its shard's lease is still held at the epoch it was decided under.

    Calls decided in a pass can wait in the pool behind others; if the worker is stopped and its
    lease taken meanwhile, they are dropped when their turn comes, and the new owner decides again.
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._guards: dict[tuple[int, int], Callable[[], bool]] = {}

    def guard(self, shard: int) -> Callable[[], bool] | None:
        epoch = self._engine._held.get(shard)
        if epoch is None:
            return _never
        key = (shard, epoch)
        check = self._guards.get(key)
        if check is None:
            if len(self._guards) > 4 * len(self._engine._held) + 64:
                self._guards.clear()  # the checks of epochs gone by
            check = self._guards[key] = partial(self._engine._leases.holds, shard, epoch)
        return check


def _some(names: list[str], shown: int = 5) -> str:
    """At most `shown` names, and how many more."""
    listed = ", ".join(sorted(names)[:shown])
    return listed if len(names) <= shown else f"{listed} and {len(names) - shown} more"


def _never() -> bool:
    return False


class _ChildReportsOf:
    """What the engine tells its coordinators of their nested stacks (here, or on another worker)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def nested_report(self, child: str) -> StackReport | None:
        run = self._engine.run_of(child)  # first: a child handed over is watched from then on
        if run is None and self._engine.remote.watches(child):
            return self._engine.remote.report(child)
        return None if run is None else run.report()

    def nested_standing(self, child: str) -> tuple[int | None, StackStatus] | None:
        run = self._engine.run_of(child)
        if run is None and self._engine.remote.watches(child):
            report = self._engine.remote.report(child)
            return None if report is None else (report.generation, report.status)
        return None if run is None else (run.generation, run.status())

    def nested_outputs(self, child: str) -> Mapping[str, Any]:
        return self._engine.outputs(child)

    def nested_members(self, child: str) -> Mapping[str, Mapping[str, Any]]:
        run = self._engine.run_of(child)
        if run is None and self._engine.remote.watches(child):
            return self._engine.remote.members(child)
        return {} if run is None else run.members()
