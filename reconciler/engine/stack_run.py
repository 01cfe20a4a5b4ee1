"""The coordinator of one stack: its graph and ready set in memory, one decision per ready resource.

There are NO per-edge counters and no locks: a resource is decided when every resource it requires
is *settled* (converged at the current generation), and settling one resource considers only its
dependents, so a pass costs what changed, not the size of the stack. What the coordinator persists
are per-resource outcomes (records), written by the engine in one fenced batch per pass.

A new generation never waits for the old one: calls in flight complete and their results are
recorded, then each resource is decided again against the newest definition.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, Provider
from reconciler.engine.batching import BatchPolicy, batch_policy, check_update_policy
from reconciler.engine.call_pool import PendingCall
from reconciler.engine.call_specs import CallSpec
from reconciler.engine.deletion_policies import (
    RETAIN,
    SNAPSHOT,
    InvalidDeletionPolicy,
    deletion_policy_named,
)
from reconciler.engine.desired import DesiredStack, Policy
from reconciler.engine.drift import Drift, baseline_of, detect_drift, managed_drift, remember_baseline
from reconciler.engine.external_resources import InvalidExternalId, external_id_named
from reconciler.engine.nested_handoff import Lineage
from reconciler.engine.nested_values import NestedValues
from reconciler.engine.outcomes import (
    Applied,
    CallOutcome,
    Deleted,
    Failed,
    Observed,
    ObserveOutcome,
    RetryLater,
    Vanished,
)
from reconciler.engine.provider_calls import (
    call_create,
    call_delete,
    call_find,
    call_observe,
    call_snapshot_delete,
    call_take_external,
    call_update,
)
from reconciler.engine.provider_set import ProviderSet
from reconciler.engine.readiness_polls import Poll, ReadinessPolls
from reconciler.engine.record_rows import UNRECORDED_ATTRIBUTES, plain_json, recorded_attributes
from reconciler.engine.report import ActionCounts, Failure, StackReport
from reconciler.engine.resource_state import RecordStatus, ResourceState
from reconciler.engine.run_context import RunContext
from reconciler.engine.stack_status import StackStatus, summarize_status
from reconciler.engine.unchanged_inputs import inputs_beside_template_unchanged
from reconciler.plan import Action, RecordedResource, plan_resource
from reconciler.plan.deletion_order import string_leaves
from reconciler.templates.errors import Unresolved

# Types whose physical resource holds data no recreate brings back: a lone one vanishing needs a person.
DATA_BEARING_TYPES = frozenset({"OS::Cinder::Volume"})
GROUP_KINDS = frozenset({"group", "autoscaling"})
# Conflicts (something in the way, not a failing cloud) refusing a replacement's create before its
# old copy is deleted first instead.
REPLACE_CONFLICTS_BEFORE_DELETE_FIRST = 2
_DISPATCH_ORDER = itertools.count()  # numbers calls as they are sent, for handling them in that order


@dataclass(slots=True, eq=False)
class _InFlight:
    """A call out, or decided and waiting its turn to be sent (`work` set, `call` None)."""

    key: object
    sequence: int  # dispatch order: calls that came back in one pass are handled in this order
    deadline: float
    on_done: Callable[[Any, float], None]
    on_abandon: Callable[[float], None]
    urgent: bool = False
    work: Callable[[], Any] | None = None
    call: PendingCall | None = None
    spec: CallSpec | None = None  # the call as data: it may then be queued for another worker
    elsewhere: bool = False  # queued for any worker rather than sent to this worker's pool

    def forget(self) -> None:
        """Done with: drop the handlers (one refers back to this flight, a cycle otherwise)."""
        self.on_done = _handled
        self.on_abandon = _handled


def _handled(*_: object) -> None:
    """The handler of a flight already dealt with."""


class StackRun:
    """Converges one stack; the engine calls `set_desired`, `step` and collects `take_writes`."""

    def __init__(  # noqa: PLR0915 - one statement per piece of the coordinator's state, kept together
        self, name: str, shard: int, providers: ProviderSet, context: RunContext
    ) -> None:
        self.name = name
        self.shard = shard
        self.providers = providers
        self.context = context
        self.definition: DesiredStack | None = None
        self.policy = Policy()
        self.generation = 0
        self.commit: str | None = None
        self.group_member = self.is_group = False
        self.lineage = Lineage(name)  # how a nested stack's definition is made from its root's
        self.graph: Mapping[str, frozenset[str]] = {}
        self.dependents: dict[str, list[str]] = {}
        self.records: dict[str, ResourceState] = {}
        # Records on their way out (replaced, pruned), by id(): removal must not scan a list.
        self.retiring: dict[int, ResourceState] = {}
        self.prune_pending = False  # records left the template while a call for them was in flight
        self.batch: BatchPolicy | None = None  # a group's pace (batch_create / rolling_update)
        self.batch_resume_at = 0.0
        self.batch_full = False  # ready work held back by the group's batch size or pause
        self.settled: set[str] = set()
        self.previously_settled: set[str] = set()
        self.previous_definition: DesiredStack | None = None
        self.reuse_decisions = False
        self.values_changed: set[str] = set()
        self.acted: set[str] = set()
        self.queued: set[str] = set()
        self.ready: deque[str] = deque()
        self.in_flight: dict[object, _InFlight] = {}
        self.returned: deque[PendingCall] = deque()  # calls back from the pool, not yet handled
        self._unsent: deque[_InFlight] = deque()  # in `in_flight`, waiting for room in the pool
        self._sent = 0  # calls handed to the pool and not back yet (observations aside)
        self._deadlines: list[tuple[float, int, _InFlight]] = []  # a heap; entries of returned calls linger
        self._changes = 0  # records marked dirty or forgotten so far: when to look for references again
        self._referenced: tuple[int, frozenset[str], frozenset[str]] | None = None
        self.waiting_ready: dict[str, float] = {}  # resource -> its ready deadline
        self.observe_errors: dict[str, str] = {}  # type -> why its last observation failed
        self.readiness = ReadinessPolls()
        self.waiting_children: dict[str, int] = {}
        self.retry_at: dict[object, float] = {}
        self.failures: dict[str, str] = {}
        self.escalations: dict[str, str] = {}
        self.drifted: set[str] = set()
        self.replacements: Counter[str] = Counter()
        self.counts: Counter[str] = Counter()
        self.kept: dict[str, str] = {}  # resource (physical id) -> what its deletion policy kept
        self.dirty: dict[int, ResourceState] = {}
        self.dirty_later: dict[int, ResourceState] = {}  # written at the latest by their time in:
        self.dirty_later_due: deque[tuple[float, ResourceState]] = deque()
        self.deleted_record_ids: list[int] = []
        self.awaiting_ids: list[Callable[[], None]] = []
        self.superseded: dict[str, int] = {}  # commit a newer one took over from -> its generation
        self.status = StackStatus.PENDING
        self.status_reasons: tuple[str, ...] = ()
        self.outputs: dict[str, Any] = {}
        self.outputs_due = False  # computed, not written yet
        self.outputs_stale = True  # a value outputs may read changed since they were computed
        self.status_due = False
        self.next_observe_at = self.next_poll_at = 0.0  # drift observation, readiness polling
        self.observed_once = False
        self.removing = False
        self.values = NestedValues(self)

    # Desired state and records ---------------------------------------------------------------

    def load(self, records: Iterable[ResourceState]) -> None:
        """Rebuild from the store's records after a takeover (or a restart)."""
        for state in records:
            if state.status in (RecordStatus.RETIRED, RecordStatus.DELETE_IN_PROGRESS):
                self.retiring[id(state)] = state
            elif state.name in self.records:  # an unfinished replacement: the newest record wins
                older = self.records[state.name]
                older.successor = state
                older.status = RecordStatus.RETIRED
                self.retiring[id(older)] = older
                self._mark_dirty(older)
                self.records[state.name] = state
            else:
                self.records[state.name] = state
            if state.status is RecordStatus.CREATE_IN_PROGRESS and state.physical_id is None:
                state.attempts = max(state.attempts, 1)  # a create may have happened: adopt by marker first
        # A replaced record waits for its successor's dependents before it is deleted: link them again.
        by_record_id = {state.record_id: state for state in self.records.values() if state.record_id}
        for state in self.retiring.values():
            if state.successor is None and state.recorded_replaced_by is not None:
                state.successor = by_record_id.get(state.recorded_replaced_by)

    def set_desired(
        self,
        generation: int,
        commit: str,
        definition: DesiredStack | None,
        policy: Policy,
        *,
        group_member: bool = False,
        is_group: bool = False,
        batch: BatchPolicy | None = None,
    ) -> None:
        """Converge to `definition` from now on (None: converge to nothing, the stack is going away)."""
        self.batch = batch
        if self.commit is not None and self.commit != commit and not self._settled_status():
            self.superseded[self.commit] = self.generation
        self.previously_settled = self.settled
        self.previous_definition = self.definition
        self.reuse_decisions = (
            self.definition is not None
            and definition is not None
            and inputs_beside_template_unchanged(self.definition, definition)
        )
        self.values_changed = set()
        self.definition = definition
        self.removing = definition is None
        self.generation = generation
        self.commit = commit
        self.policy = policy
        self.group_member = group_member
        self.is_group = is_group
        self.graph = definition.graph() if definition is not None else {}
        self.dependents = {name: [] for name in self.graph}
        for name, required in self.graph.items():
            for dependency in required:
                self.dependents.setdefault(dependency, []).append(name)
        self.settled = set()
        self.acted = set()
        self.queued = set()
        self.ready = deque()
        self.failures = {}
        self.escalations = {}
        self.replacements = Counter()
        self.counts = Counter()
        self.kept = {}
        self.outputs_stale = True
        self.status = StackStatus.PROGRESSING
        self.status_due = True
        for key in [key for key in self.retry_at if isinstance(key, str) and key not in self.graph]:
            del self.retry_at[key]
        self._retire_pruned()
        for name in self.graph:
            self._consider(name)

    def _retire_pruned(self) -> None:
        self.prune_pending = False
        if not (self.policy.prune or self.removing):
            return
        for name in [name for name in self.records if name not in self.graph]:
            if name in self.in_flight or name in self.waiting_ready:
                self.prune_pending = True
                continue  # retired once its call is back
            state = self.records.pop(name)
            state.status = RecordStatus.RETIRED
            self._mark_dirty(state)
            self.retiring[id(state)] = state

    # The pass --------------------------------------------------------------------------------

    def step(self, now: float) -> None:
        """One non-blocking pass: collect results, decide what is ready, observe when due."""
        self._collect(now)
        self._release_due_retries(now)
        self._check_children(now)
        self._drain_ready(now)
        self._poll_readiness(now)
        self._observe_if_due(now)
        if self.prune_pending:
            self._retire_pruned()
        self._delete_retirees(now)
        self._summarize(now)

    def next_wake(self) -> float | None:
        """When this stack next needs a pass without any call coming back (None: never)."""
        times = list(self.retry_at.values())
        if self.batch_full and self.batch_resume_at > 0:
            times.append(self.batch_resume_at)
        if self.waiting_ready:
            times.append(self.next_poll_at)
        if self.graph and self.records and not self.removing:
            times.append(self.next_observe_at)
        if self._deadlines:
            times.append(self._deadlines[0][0])
        if self.dirty_later_due:
            times.append(self.dirty_later_due[0][0])
        return min(times) if times else None

    def can_move(self) -> bool:
        """Whether another pass now would do something: ready work, or a nested stack that settled."""
        if self.ready and not self.batch_full and self._outstanding() < self.context.settings.in_flight_limit:
            return True
        for name, generation in self.waiting_children.items():
            state = self.records.get(name)
            if state is None or state.physical_id is None:
                return True
            report = self.context.nested.nested_report(state.physical_id)
            if report is not None and report.generation == generation and report.settled:
                return True
        return False

    @property
    def busy(self) -> bool:
        """Something can move without time passing: calls to collect, decisions to take."""
        return bool(self.in_flight or (self.ready and not self.batch_full) or self.awaiting_ids)

    def _outstanding(self) -> int:
        """Calls out, and creates waiting for their intent records to be written before they go."""
        return len(self.in_flight) + len(self.awaiting_ids)

    def _collect(self, now: float) -> None:
        """Handle the calls that came back, then abandon those past their deadline.

        Only what came back is looked at (the pool delivers it), never every call still out.
        """
        if self.returned:
            came_back = sorted(self.returned, key=_dispatch_order)
            self.returned.clear()
            self._sent -= sum(1 for pending in came_back if _counts_as_sent(pending))
            self._send_unsent()  # before handling what came back: the pool is not left idle meanwhile
            for index, pending in enumerate(came_back):
                try:
                    self._returned_call(pending, now)
                except BaseException:
                    self.returned.extend(came_back[index + 1 :])  # handled next pass
                    raise
        deadlines = self._deadlines
        while deadlines:
            deadline, _, flight = deadlines[0]
            current = self.in_flight.get(flight.key) is flight
            if current and deadline > now:
                break
            heapq.heappop(deadlines)
            if current:
                del self.in_flight[flight.key]
                flight.on_abandon(now)
        if len(deadlines) > 2 * len(self.in_flight) + 1024:  # returned calls' entries, dropped at once
            self._deadlines = [(f.deadline, f.sequence, f) for f in self.in_flight.values()]
            heapq.heapify(self._deadlines)

    def _returned_call(self, pending: PendingCall, now: float) -> None:
        flight = pending.tag
        assert isinstance(flight, _InFlight)
        # The call and its flight refer to each other: unlinked, what came back (the live body
        # and everything made from it) is freed as soon as it is handled, by reference counting,
        # rather than kept for the cyclic collector, which would walk it first.
        pending.tag = flight.call = None
        if self.in_flight.get(flight.key) is not flight:
            flight.forget()
            return  # abandoned at its deadline, perhaps already sent again
        del self.in_flight[flight.key]
        if pending.cancelled:
            flight.on_abandon(now)  # never sent: the pool shut down before it ran
        else:
            flight.on_done(pending.outcome(), now)
        if self.in_flight.get(flight.key) is not flight:  # not watched further under a key of its own
            flight.forget()

    def _release_due_retries(self, now: float) -> None:
        for key, when in list(self.retry_at.items()):
            if when <= now:
                del self.retry_at[key]
                if isinstance(key, str):
                    self._consider(key)

    def _drain_ready(self, now: float) -> None:
        limit = self.context.settings.in_flight_limit
        self.batch_full = False
        while self.ready and self._outstanding() < limit:
            if not self._batch_has_room(now):
                self.batch_full = True
                break
            name = self.ready.popleft()
            self.queued.discard(name)
            self._decide(name, now)

    def _members_in_progress(self) -> int:
        acting = sum(1 for key in self.in_flight if isinstance(key, str))
        return acting + len(self.waiting_children) + len(self.waiting_ready) + len(self.awaiting_ids)

    def _batch_has_room(self, now: float) -> bool:
        """A group with a batch policy works on `max_batch_size` members, pausing between batches."""
        if self.batch is None:
            return True
        in_progress = self._members_in_progress()
        if in_progress == 0 and self.batch_resume_at == -1.0:
            self.batch_resume_at = now + self.batch.pause_time  # a batch just finished
        if now < self.batch_resume_at:
            return False
        if in_progress >= self.batch.max_batch_size:
            self.batch_resume_at = -1.0  # full: pause once it empties
            return False
        return True

    # Readiness -------------------------------------------------------------------------------

    def _consider(self, name: str) -> None:
        """Queue `name` for a decision if everything it requires is settled."""
        if name in self.queued or name in self.settled or name not in self.graph:
            return
        if all(required in self.settled for required in self.graph[name]):
            self.queued.add(name)
            self.ready.append(name)

    def _settle(self, name: str, *, values_changed: bool) -> None:
        self.settled.add(name)
        if values_changed:
            self.outputs_stale = True
            self.values_changed.add(name)
        self.retry_at.pop(name, None)
        self.drifted.discard(name)
        for dependent in self.dependents.get(name, ()):
            if values_changed and dependent in self.settled:
                self.settled.discard(dependent)
            self._consider(dependent)

    def _unsettle(self, name: str) -> None:
        self.settled.discard(name)
        self._consider(name)

    def _finished(self, state: ResourceState, *, values_changed: bool) -> None:
        """A call for `state` came back successful: settle it if it was for the current generation."""
        name = state.name
        if name not in self.graph:
            self._retire_pruned()
        elif state.generation == self.generation and self.records.get(name) is state:
            self._settle(name, values_changed=values_changed)
        else:
            self._consider(name)

    # Deciding one resource -------------------------------------------------------------------

    def _decide(self, name: str, now: float) -> None:
        if name in self.in_flight or name in self.waiting_ready or name in self.waiting_children:
            return
        if name in self.retry_at or name in self.failures or name in self.settled:
            return
        assert self.definition is not None
        resource = self.definition.resources[name]
        state = self.records.get(name)
        if self._decision_still_holds(name, resource, state):
            assert state is not None
            state.generation = self.generation
            self._settle(name, values_changed=False)
            return
        resolved = self._resolved(name, resource)
        if resolved is None:
            return
        desired, deletion_policy, external_id = resolved
        if resource.nested_kind is not None:
            if resource.nested_kind not in GROUP_KINDS or self._update_policy_usable(name, resource):
                self._converge_nested(name, type_name=resource.type, desired=desired, state=state, now=now)
            return
        if external_id is not None:
            self._take_external(name, resource.type, external_id, desired, state, now=now)
            return
        recorded = None
        if state is not None:
            failed = state.status is RecordStatus.FAILED
            recorded = RecordedResource(name, state.type, state.physical_id, state.properties, failed=failed)
        plan = plan_resource(name, resource.type, desired, recorded, self.providers)
        self._keep_deletion_policy(state, deletion_policy)
        if plan.action is Action.UNCHANGED:
            assert state is not None
            self._already_applied(state, now)
        elif plan.action is Action.CREATE:
            self._create(name, resource.type, desired, state, now)
        elif plan.action is Action.UPDATE:
            assert state is not None
            self._update(state, desired, plan.changed, now)
        else:
            assert state is not None
            self._replace(state, resource.type, desired, failing="status" in plan.replace_reasons, now=now)
        self._keep_deletion_policy(self.records.get(name), deletion_policy)

    def _resolved(self, name: str, resource: Any) -> tuple[dict[str, Any], str, str | None] | None:
        """Its properties, deletion policy and external id now; None when they cannot be resolved
        yet (or ever)."""
        assert self.definition is not None
        try:
            desired = plain_json(self.definition.resolve_properties(name, self.values))
            return desired, self._deletion_policy(resource), self._external_id(resource)
        except Unresolved:
            return None  # considered again when what it reads settles
        except (InvalidDeletionPolicy, InvalidExternalId) as error:
            self._fail(name, str(error))
        except Exception as error:
            self._fail(name, f"invalid properties: {error}")
        return None

    def _external_id(self, resource: Any) -> str | None:
        written = resource.external_id
        if written is None:
            return None
        assert self.definition is not None
        return external_id_named(
            written if type(written) is str else self.definition.resolve(written, self.values)
        )

    def _is_external(self, name: str) -> bool:
        resource = self.definition.resources.get(name) if self.definition is not None else None
        return resource is not None and resource.external_id is not None

    def _deletion_policy(self, resource: Any) -> str:
        written = resource.deletion_policy
        if type(written) is str:  # almost always: no function to resolve
            return deletion_policy_named(written)
        assert self.definition is not None
        return deletion_policy_named(self.definition.resolve(written, self.values))

    def _keep_deletion_policy(self, state: ResourceState | None, policy: str) -> None:
        """Record the policy removal will follow (a replaced copy keeps the one it was made with)."""
        if state is not None and state.deletion_policy != policy:
            state.deletion_policy = policy
            self._mark_dirty(state)

    def _decision_still_holds(self, name: str, resource: Any, state: ResourceState | None) -> bool:
        """Settled last generation with the same definition, and nothing it reads changed since."""
        if not self.reuse_decisions or state is None or state.status is not RecordStatus.READY:
            return False
        if name not in self.previously_settled or self.values_changed & self.graph[name]:
            return False
        previous = self.previous_definition.resources.get(name) if self.previous_definition else None
        return previous is not None and resource.nested_kind is None and previous == resource

    def _already_applied(self, state: ResourceState, now: float) -> None:
        if state.status is RecordStatus.READY:
            if state.generation != self.generation:
                state.generation = self.generation
            self._settle(state.name, values_changed=False)
        elif state.physical_id is not None:  # created or updated before; not ready yet
            self._wait_ready(state.name, now)
            self.next_poll_at = min(self.next_poll_at, now)

    def _provider(self, name: str, type_name: str) -> Provider | None:
        provider = self.providers.provider_for(type_name)
        if provider is None:
            self._fail(name, f"no provider serves {type_name} on cloud {self.policy.cloud!r}")
        return provider

    def _without_secrets(self, text: str) -> str:
        """`text` with the stack's hidden parameter values masked (failures reach the store)."""
        return self.definition.without_secrets(text) if self.definition is not None else text

    def _fail(self, name: str, reason: str) -> None:
        reason = self._without_secrets(reason)
        self.failures[name] = reason
        state = self.records.get(name)
        if state is not None:
            state.status = RecordStatus.FAILED
            state.last_error = reason
            self._mark_dirty(state)

    def _mark_dirty(self, state: ResourceState) -> None:
        self.dirty[id(state)] = state
        self._changes += 1

    def _mark_dirty_soon(self, state: ResourceState, now: float) -> None:
        """Write `state` with its next change, or `building_write_delay` from now at the latest.

        For a create back while the resource builds: the record would be written again when the
        resource is READY (seconds later for a server), so one write of the two is spared.
        """
        self._changes += 1
        if id(state) not in self.dirty and id(state) not in self.dirty_later:
            self.dirty_later[id(state)] = state
            self.dirty_later_due.append((now + self.context.settings.building_write_delay, state))

    # Create, update, replace -----------------------------------------------------------------

    def _create(
        self, name: str, type_name: str, desired: dict[str, Any], state: ResourceState | None, now: float
    ) -> None:
        provider = self._provider(name, type_name)
        if provider is None:
            return
        if state is not None and self._marker_names_other_inputs(state, type_name, desired):
            state = self._fresh_record_for(state, type_name)
        if state is None or state.physical_id is not None:
            state = ResourceState(name, type_name, RecordStatus.CREATE_IN_PROGRESS, self.generation)
            self.records[name] = state
        state.type = type_name
        state.status = RecordStatus.CREATE_IN_PROGRESS
        state.generation = self.generation
        state.properties = desired
        state.last_error = None
        self.acted.add(name)
        self._mark_dirty(state)
        if self.providers.is_inline(type_name):
            state.marker_token = state.marker_token or f"n{self.context.random.getrandbits(48):012x}"
            marker = Marker(self.name, name, state.marker_token)
            self._on_create(state, call_create(provider, type_name, desired, marker, adopt_first=False), now)
            return

        def dispatch() -> None:
            assert state is not None and state.record_id is not None
            marker = Marker(self.name, name, str(state.record_id))
            adopt_first = state.attempts > 0
            spec = None
            if self.context.shared is not None:  # the call as data, for another worker to make
                spec = CallSpec(
                    "create",
                    self.policy.cloud,
                    type_name,
                    properties=desired,
                    marker=marker,
                    adopt_first=adopt_first,
                )
            self._dispatch(
                name,
                partial(call_create, provider, type_name, desired, marker, adopt_first=adopt_first),
                lambda outcome, at: self._on_create(state, outcome, at),
                lambda at: None,
                now,
                spec=spec,
            )
            flight = self.in_flight[name]
            flight.on_abandon = partial(self._create_abandoned, state, flight)

        if state.record_id is None:
            self.awaiting_ids.append(dispatch)  # the marker needs the record id: written first
        else:
            dispatch()

    def _on_create(self, state: ResourceState, outcome: CallOutcome, now: float) -> None:
        if state.physical_id is not None:  # an earlier attempt, back late, landed first
            if isinstance(outcome, Applied) and outcome.live.physical_id != state.physical_id:
                self._discard_duplicate(state, outcome.live)
            return
        if isinstance(outcome, Applied) and outcome.live.status is LiveStatus.IN_PROGRESS:
            self._mark_dirty_soon(state, now)
        else:
            self._mark_dirty(state)
        if isinstance(outcome, Applied):
            if not state.is_replacement:
                self.counts["created"] += 1
            self._apply_live(state, outcome.live, now, new_physical=True)
        elif isinstance(outcome, RetryLater):
            self._retry(state, outcome, now)
            if state.is_replacement and outcome.conflict:
                state.conflicts += 1
                if state.conflicts >= REPLACE_CONFLICTS_BEFORE_DELETE_FIRST:
                    self._delete_predecessor_first(state)
        elif isinstance(outcome, Failed):
            self._fail_state(state, outcome.message, sent_for=state.generation)
        else:
            self._retry(state, RetryLater("create answered as if the resource were gone"), now)

    # Creates that come back after their deadline -------------------------------------------
    #
    # An abandoned create call keeps running: its resource may land in the cloud at any later
    # time, after a retry, a newer generation, a replacement or a prune. Its future stays watched
    # (as a "late-create" call in flight) until it comes back, and what it made is adopted when
    # its record still needs one, deleted otherwise: never left behind. Every marker names one set
    # of inputs, so whatever is found or lands under it is what the record says was asked for.

    def _create_abandoned(self, state: ResourceState, flight: _InFlight, now: float) -> None:
        """The create call for `state` passed its deadline: retry (adopting by marker), keep watching."""
        self._on_create(state, RetryLater("create call timed out"), now)
        self._watch_late_create(state, flight, now)

    def _watch_late_create(self, state: ResourceState, flight: _InFlight, now: float) -> None:
        """Watch a create call still out under a key of its own, until it comes back."""
        pending = flight.call
        if pending is None or pending.delivered:
            return  # never sent (nothing can land), or back already (cancelled, never sent)
        flight.key = ("late-create", id(state), flight.sequence)
        flight.deadline = now + self.context.settings.call_deadline
        flight.on_done = partial(self._late_create_back, state)
        flight.on_abandon = partial(self._watch_late_create, state, flight)  # still out: keep watching
        self.in_flight[flight.key] = flight
        heapq.heappush(self._deadlines, (flight.deadline, flight.sequence, flight))

    def _late_create_back(self, state: ResourceState, outcome: CallOutcome, now: float) -> None:
        if not isinstance(outcome, Applied):
            return  # nothing landed (a lost answer is found by marker: the retry or the deletion)
        live = outcome.live
        if state.physical_id is not None:
            if live.physical_id != state.physical_id:
                self._discard_duplicate(state, live)
        elif self.records.get(state.name) is state:
            self.retry_at.pop(state.name, None)
            self._on_create(state, Applied(live, adopted=True), now)
        elif id(state) in self.retiring:
            state.physical_id = live.physical_id  # deleted as the retiree it is
            self._mark_dirty(state)
        else:
            self._discard_duplicate(state, live)

    def _late_create_out(self, state: ResourceState) -> bool:
        wanted = id(state)
        return any(isinstance(key, tuple) and key[:2] == ("late-create", wanted) for key in self.in_flight)

    def _discard_duplicate(self, state: ResourceState, live: LiveResource) -> None:
        """A resource made for `state` that it does not hold: recorded as retired, then deleted."""
        duplicate = ResourceState(
            state.name,
            state.type,
            RecordStatus.RETIRED,
            state.generation,
            physical_id=live.physical_id,
            last_error="left by a create that came back after its deadline",
            successor=state,  # not counted as deleted: nobody asked for it
            delete_first=True,
        )
        self.retiring[id(duplicate)] = duplicate
        self._mark_dirty(duplicate)

    def _marker_names_other_inputs(
        self, state: ResourceState, type_name: str, desired: dict[str, Any]
    ) -> bool:
        """An unacknowledged create (it may have landed) was sent with other inputs than these."""
        return (
            state.physical_id is None
            and state.record_id is not None
            and state.attempts > 0
            and (state.type != type_name or state.properties != desired)
        )

    def _fresh_record_for(self, state: ResourceState, type_name: str) -> ResourceState:
        """Retire a record whose create may have landed (its marker is searched and what it finds
        deleted) and put a fresh record, with a marker of its own, in its place."""
        self.records.pop(state.name, None)
        state.status = RecordStatus.RETIRED
        state.delete_first = True
        self._mark_dirty(state)
        self.retiring[id(state)] = state
        fresh = ResourceState(state.name, type_name, RecordStatus.CREATE_IN_PROGRESS, self.generation)
        fresh.is_replacement = state.is_replacement
        state.successor = fresh  # not counted as deleted: nobody asked for what it may have made
        for old in self.retiring.values():
            if old.successor is state:
                old.successor = fresh
        self.records[state.name] = fresh
        return fresh

    def _delete_predecessor_first(self, state: ResourceState) -> None:
        """Create-before-delete keeps conflicting: the old copy is in the way, so it goes first.

        Only conflicts lead here: when the cloud fails (5xx, timeouts) deleting the old copy first
        would throw a working resource away for nothing.
        """
        for old in self.retiring.values():
            if old.successor is state and not old.delete_first:
                old.delete_first = True

    def _apply_live(
        self, state: ResourceState, live: LiveResource, now: float, *, new_physical: bool
    ) -> None:
        """A create or update came back with `live`: ready, still building, or failed in the cloud."""
        previous_attributes = state.attributes
        state.physical_id = live.physical_id
        # A resource just created and still building is read again once READY (`_on_readiness`):
        # its attributes and the baseline for drift are taken then, not twice.
        if not (new_physical and live.status is LiveStatus.IN_PROGRESS):
            if _attributes_moved(state, live):
                state.attributes = {**state.attributes, **recorded_attributes(live)}
            remember_baseline(state, live)
        state.attempts = 0
        state.next_attempt_at = None
        if live.status is LiveStatus.READY:
            state.status = RecordStatus.READY
            self._finished(state, values_changed=new_physical or state.attributes != previous_attributes)
        elif live.status is LiveStatus.IN_PROGRESS:
            self._wait_ready(state.name, now)
        else:
            state.status = RecordStatus.FAILED
            state.last_error = live.status_reason or "the cloud reports the resource FAILED"
            self._replace_failed(state, state.last_error, now)

    def _retry(self, state: ResourceState, outcome: RetryLater, now: float) -> None:
        state.attempts += 1
        state.last_error = outcome.message
        if state.attempts >= self.context.settings.max_attempts:
            self._fail_state(state, f"gave up after {state.attempts} attempts: {outcome.message}")
            return
        delay = self.context.settings.backoff.delay(state.attempts, outcome.after, self.context.random)
        state.next_attempt_at = now + delay
        self.retry_at[state.name] = state.next_attempt_at
        self._mark_dirty(state)

    def _fail_state(self, state: ResourceState, message: str, *, sent_for: int | None = None) -> None:
        """The resource failed; `sent_for` is the generation a failed call was sent for.

        A call's refusal that arrives after a newer generation took over says nothing about the
        newest one (supersede, never block): the resource is decided afresh against it.
        """
        message = self._without_secrets(message)
        state.status = RecordStatus.FAILED
        state.last_error = message
        self._mark_dirty(state)
        if sent_for is not None and sent_for != self.generation:
            self._consider(state.name)
            return
        if self.records.get(state.name) is state and state.name in self.graph:
            self.failures[state.name] = message

    def _update(
        self, state: ResourceState, desired: dict[str, Any], changed: frozenset[str], now: float
    ) -> None:
        provider = self._provider(state.name, state.type)
        if provider is None or state.physical_id is None:
            return
        physical_id = state.physical_id
        type_name = state.type
        generation = self.generation
        self.acted.add(state.name)

        def done(outcome: CallOutcome, at: float) -> None:
            self._mark_dirty(state)
            if isinstance(outcome, Applied):
                self.counts["updated"] += 1
                state.properties = desired
                state.generation = generation
                state.status = RecordStatus.UPDATE_IN_PROGRESS
                self._apply_live(state, outcome.live, at, new_physical=False)
            elif isinstance(outcome, Vanished):
                state.physical_id = None
                self._consider(state.name)
            elif isinstance(outcome, RetryLater):
                self._retry(state, outcome, at)
            elif isinstance(outcome, Failed):
                self._fail_state(state, outcome.message, sent_for=generation)

        call = partial(call_update, provider, type_name, physical_id, desired, changed)
        if self.providers.is_inline(type_name):
            done(call(), now)
        else:
            spec = CallSpec(
                "update",
                self.policy.cloud,
                type_name,
                (physical_id,),
                properties=desired,
                changed=tuple(changed),
            )
            abandon = partial(done, RetryLater("update timed out"))
            self._dispatch(state.name, call, done, abandon, now, spec=spec)

    def _take_external(
        self,
        name: str,
        type_name: str,
        external_id: str,
        desired: dict[str, Any],
        state: ResourceState | None,
        *,
        now: float,
    ) -> None:
        """Take the existing resource `external_id` names: checked to exist, never created."""
        if state is not None and state.physical_id == external_id and state.type == type_name:
            self._keep_deletion_policy(state, RETAIN)
            if state.status is not RecordStatus.FAILED:
                self._already_applied(state, now)
                return
        provider = self._provider(name, type_name)
        if provider is None:
            return
        taken = ResourceState(name, type_name, RecordStatus.CREATE_IN_PROGRESS, self.generation)
        taken.properties, taken.deletion_policy = desired, RETAIN
        if state is not None:  # re-pointed: what was taken (or made) before goes by its own policy
            self.records.pop(name, None)
            state.status = RecordStatus.RETIRED
            state.successor = taken
            self._mark_dirty(state)
            self.retiring[id(state)] = state
        self.records[name] = taken
        self.acted.add(name)
        self._mark_dirty(taken)

        def done(outcome: CallOutcome, at: float) -> None:
            self._mark_dirty(taken)
            if isinstance(outcome, Applied):
                self._apply_live(taken, outcome.live, at, new_physical=True)
            elif isinstance(outcome, RetryLater):
                self._retry(taken, outcome, at)
            elif isinstance(outcome, Failed):
                self._fail_state(taken, outcome.message, sent_for=taken.generation)

        call = partial(call_take_external, provider, type_name, external_id)
        if self.providers.is_inline(type_name):
            done(call(), now)
        else:
            spec = CallSpec("take_external", self.policy.cloud, type_name, (external_id,))
            abandon = partial(done, RetryLater("looking it up timed out"))
            self._dispatch(name, call, done, abandon, now, spec=spec)

    def _replace(
        self, state: ResourceState, type_name: str, desired: dict[str, Any], *, failing: bool, now: float
    ) -> None:
        """Create the new one first; the old one is deleted once its dependents have moved."""
        if failing:
            self.replacements[state.name] += 1
            if self.replacements[state.name] > self.context.settings.max_replacements:
                reason = f"replaced {self.replacements[state.name] - 1} times and still failing"
                self.escalations[state.name] = f"{reason}: {state.last_error or 'no reason given'}"
                self._fail_state(state, self.escalations[state.name])
                return
        self.counts["replaced"] += 1
        state.status = RecordStatus.RETIRED
        self._mark_dirty(state)
        self.records.pop(state.name, None)
        self.retiring[id(state)] = state
        self._create(state.name, type_name, desired, None, now)
        state.successor = self.records.get(state.name)
        if state.successor is not None:
            state.successor.is_replacement = True

    def _replace_failed(self, state: ResourceState, reason: str, now: float) -> None:
        """A resource failed in the cloud (ERROR, stuck building): decide it again, as a replacement."""
        state.status = RecordStatus.FAILED
        state.last_error = reason
        self._mark_dirty(state)
        self.waiting_ready.pop(state.name, None)
        self.settled.discard(state.name)
        self.failures.pop(state.name, None)
        if state.name in self.graph:
            self._consider(state.name)

    def _dispatch(
        self,
        key: object,
        call: Callable[[], Any],
        on_done: Callable[[Any, float], None],
        on_abandon: Callable[[float], None],
        now: float,
        *,
        urgent: bool = False,
        spec: CallSpec | None = None,
    ) -> None:
        deadline = now + self.context.settings.call_deadline
        flight = _InFlight(key, next(_DISPATCH_ORDER), deadline, on_done, on_abandon, urgent, call, spec=spec)
        self.in_flight[key] = flight
        heapq.heappush(self._deadlines, (deadline, flight.sequence, flight))
        if urgent:
            self._send(flight)
        else:
            self._unsent.append(flight)
            self._send_unsent()

    def _send_unsent(self) -> None:
        """Hand waiting calls to the pool while it has room: at most `sent_limit` out at once.

        Calls decided (their intents written) wait here rather than deep in the pool's queue: they
        go out only in passes that hold the stack's lease, and the pool never holds more than a
        call or two per thread that could start after a lease was lost.
        """
        limit = self.context.settings.sent_limit
        unsent = self._unsent
        while unsent and self._sent < limit:
            flight = unsent.popleft()
            if self.in_flight.get(flight.key) is flight:  # not abandoned meanwhile
                self._send(flight)
        shared = self.context.shared
        if unsent and shared is not None:
            self._queue_elsewhere(shared.room())

    def _queue_elsewhere(self, room: int) -> None:
        """The pool is full: queue further calls for other workers, in order, while there is room."""
        shared = self.context.shared
        unsent = self._unsent
        while unsent and room > 0 and shared is not None:
            flight = unsent[0]
            if self.in_flight.get(flight.key) is not flight:
                unsent.popleft()  # abandoned meanwhile
                continue
            if flight.spec is None:
                return  # not a call another worker can make: it waits for this pool, in order
            pending = shared.offer(self.name, self.shard, flight.spec, self.returned, flight)
            if pending is None:
                return  # not under a lease now: it waits
            unsent.popleft()
            flight.work, flight.call, flight.elsewhere = None, pending, True
            room -= 1

    def _send(self, flight: _InFlight) -> None:
        work, flight.work = flight.work, None
        assert work is not None
        flight.call = self.context.dispatcher.submit(work, self.returned, flight, urgent=flight.urgent)
        if not flight.urgent:
            self._sent += 1

    def ids_assigned(self) -> None:
        """The engine wrote the intents: dispatch the creates that waited for their record ids."""
        waiting, self.awaiting_ids = self.awaiting_ids, []
        for dispatch in waiting:
            dispatch()
        for state in self.retiring.values():
            if state.replaced_by != state.recorded_replaced_by:
                self._mark_dirty(state)  # written again, now that its successor has an id

    # Nested stacks ---------------------------------------------------------------------------

    def _converge_nested(
        self,
        name: str,
        *,
        type_name: str,
        desired: dict[str, Any],
        state: ResourceState | None,
        now: float,
    ) -> None:
        assert self.definition is not None
        child = f"{self.name}/{name}"
        definition = self.definition.nested(name, desired)
        if definition is None:
            self._fail(name, f"{type_name} has no nested definition")
            return
        if state is None:
            state = ResourceState(name, type_name, RecordStatus.CREATE_IN_PROGRESS, self.generation)
            self.records[name] = state
            self.counts["created"] += 1
            self.acted.add(name)
        elif state.properties != desired or state.type != type_name:
            self.counts["updated"] += 1
            self.acted.add(name)
        state.type = type_name
        state.physical_id = child
        state.properties = desired
        state.generation = self.generation
        self._mark_dirty(state)
        policy = Policy(
            self.policy.cloud, self.policy.self_heal, self.policy.prune, self.policy.observe_interval
        )
        member = self.is_group or self.group_member
        resource = self.definition.resources[name]
        kind = resource.nested_kind
        batch = None
        if kind in GROUP_KINDS:
            batch = batch_policy(
                self._resolved_update_policy(resource), creating=state.status is not RecordStatus.READY
            )
        generation = self.context.nested.submit_nested(
            child,
            self.commit or "",
            definition,
            policy,
            group_member=member,
            is_group=kind in GROUP_KINDS,
            batch=batch,
            lineage=self.lineage.child(name, desired),
        )
        self.waiting_children[name] = generation
        self._check_child(name, now)

    def nested_changed(self, name: str) -> None:
        """The nested stack of `name` settled again on its own (drift repaired): read its values anew."""
        if name in self.settled and name not in self.waiting_children and name not in self.in_flight:
            self._unsettle(name)

    def _update_policy_usable(self, name: str, resource: Any) -> bool:
        """A group's update_policy can pace it: False (and the group waits, or fails) otherwise."""
        try:
            check_update_policy(self._resolved_update_policy(resource))
        except Unresolved:
            return False  # considered again when what the policy reads settles
        except Exception as error:
            self._fail(name, f"invalid update_policy of {name}: {error}")
            return False
        return True

    def _resolved_update_policy(self, resource: Any) -> Any:
        """The group's update_policy with its functions resolved (checked by `_update_policy_usable`)."""
        policy = getattr(resource, "update_policy", None)
        if policy is None or self.definition is None:
            return None
        return self.definition.resolve(policy, self.values)

    def _check_children(self, now: float) -> None:
        for name in list(self.waiting_children):
            self._check_child(name, now)

    def _check_child(self, name: str, now: float) -> None:
        state = self.records.get(name)
        generation = self.waiting_children.get(name)
        if state is None or generation is None or state.physical_id is None:
            self.waiting_children.pop(name, None)
            return
        report = self.context.nested.nested_report(state.physical_id)
        if report is None or report.generation != generation or not report.settled:
            return
        del self.waiting_children[name]
        self._mark_dirty(state)
        if report.status is StackStatus.CONVERGED:
            state.status = RecordStatus.READY
            state.attributes = plain_json(dict(self.context.nested.nested_outputs(state.physical_id)))
            state.last_error = None
            self._finished(state, values_changed=True)
        else:
            reasons = "; ".join(str(failure) for failure in report.failures) or report.status.value
            self._fail_state(state, f"nested stack {state.physical_id} {report.status.value}: {reasons}")

    # Observation -----------------------------------------------------------------------------

    def _observable(self, state: ResourceState) -> bool:
        return (
            state.physical_id is not None
            and self.providers.resource_type(state.type) is not None
            and not self.providers.is_inline(state.type)
        )

    def _poll_readiness(self, now: float) -> None:
        if not self.waiting_ready:
            return
        interval = self.context.settings.readiness_poll
        interval_due = now >= self.next_poll_at
        if interval_due:
            self.next_poll_at = now + interval
            self._give_up_past_deadlines(now)
        polls = self.readiness.choose(
            self._waiting_to_poll(), now=now, interval=interval, interval_due=interval_due, out=self._poll_out
        )
        for poll in polls:
            states = [self.records[name] for name in poll.names]
            handle = self._on_readiness_swept if poll.sweep else self._on_readiness
            self._observe_batch(poll.type_name, states, handle, now, partial(self._polled, poll))

    def _wait_ready(self, name: str, now: float) -> None:
        """Wait for `name` to be READY, by the ready deadline from `now`.

        Entries are kept in the order their deadlines fall (one deadline for all, the clock moving
        forward): a name waiting again goes to the end, so the past ones are always at the front.
        """
        self.waiting_ready.pop(name, None)
        self.waiting_ready[name] = now + self.context.settings.ready_deadline

    def _give_up_past_deadlines(self, now: float) -> None:
        """Every operation has a deadline, whether or not an observation succeeds (DESIGN.md §4.6).

        Only the front of `waiting_ready` is read, up to the first deadline still ahead (see
        `_wait_ready`), not every resource waiting at every interval.
        """
        past: list[str] = []
        for name, deadline in self.waiting_ready.items():
            if deadline > now:
                break
            past.append(name)
        for name in past:
            state = self.records.get(name)
            if state is not None:
                self._replace_failed(state, self._not_ready_in_time(state), now)

    def _waiting_to_poll(self) -> Iterator[tuple[str, str]]:
        """(name, type) of the resources waiting to be READY that can be observed, longest waiting first."""
        records = self.records
        for name in self.waiting_ready:
            state = records.get(name)
            if state is not None and state.physical_id is not None and ("poll", name) not in self.in_flight:
                yield name, state.type

    def _poll_out(self, type_name: str, sweep: bool) -> bool:
        handle = self._on_readiness_swept if sweep else self._on_readiness
        return ("observe", type_name, handle.__name__) in self.in_flight

    def _polled(self, poll: Poll, observed: bool) -> None:
        resolved = sum(1 for name in poll.names if name not in self.waiting_ready) if observed else None
        self.readiness.observed(poll, resolved)

    def _not_ready_in_time(self, state: ResourceState) -> str:
        """Why a resource still waiting past its ready deadline is given up on."""
        unseen = self.observe_errors.get(state.type)
        if unseen is not None:
            return f"not seen READY by its deadline: observing {state.type} failed: {unseen}"
        return "still in progress past its deadline"

    def _observe_batch(
        self,
        type_name: str,
        states: list[ResourceState],
        handle: Callable[[ResourceState, LiveResource | None, float], None],
        now: float,
        finished: Callable[[bool], None] | None = None,
    ) -> None:
        """Observe `states` in one call; `finished(observed)` runs once every answer was handled."""
        provider = self.providers.provider_for(type_name)
        if provider is None:
            return
        ids = [state.physical_id for state in states if state.physical_id is not None]
        key = ("observe", type_name, handle.__name__)
        if key in self.in_flight:
            return

        def done(outcome: ObserveOutcome, at: float) -> None:
            if not isinstance(outcome, Observed):
                self.observe_errors[type_name] = outcome.message
                if finished is not None:
                    finished(False)
                return  # a failed observation is tried again at the next poll (deadlines still hold)
            self.observe_errors.pop(type_name, None)
            for state in states:
                if state.physical_id is not None:
                    handle(state, outcome.live.get(state.physical_id), at)
            if finished is not None:
                finished(True)

        call = partial(call_observe, provider, type_name, ids)
        if self.providers.is_inline(type_name):
            done(call(), now)
        else:
            self._dispatch(
                key, call, done, lambda at: done(RetryLater("observe call timed out"), at), now, urgent=True
            )

    def _on_readiness_swept(self, state: ResourceState, live: LiveResource | None, now: float) -> None:
        """A sweep's answer (see `readiness_polls`), handled as any poll's."""
        self._on_readiness(state, live, now)

    def _on_readiness(self, state: ResourceState, live: LiveResource | None, now: float) -> None:
        name = state.name
        if self.records.get(name) is not state or name not in self.waiting_ready:
            return
        deadline = self.waiting_ready[name]
        if live is None:
            del self.waiting_ready[name]
            state.physical_id = None
            state.status = RecordStatus.CREATE_IN_PROGRESS
            self._mark_dirty(state)
            self._retry(state, RetryLater("the resource vanished while being built"), now)
        elif live.status is LiveStatus.READY:
            del self.waiting_ready[name]
            state.status = RecordStatus.READY
            if _attributes_moved(state, live):
                state.attributes = {**state.attributes, **recorded_attributes(live)}
            remember_baseline(state, live)
            self._mark_dirty(state)
            self._finished(state, values_changed=True)
        elif live.status is LiveStatus.FAILED:
            self._replace_failed(state, live.status_reason or "the cloud reports the resource FAILED", now)
        elif now >= deadline:
            self._replace_failed(state, f"still {live.status_reason or 'in progress'} past its deadline", now)

    def _observe_if_due(self, now: float) -> None:
        if now < self.next_observe_at or self.removing or self.definition is None:
            return
        self.next_observe_at = now + self.policy.observe_interval
        by_type: dict[str, list[ResourceState]] = {}
        for state in self.records.values():
            if state.status is RecordStatus.READY and state.name in self.graph and self._observable(state):
                by_type.setdefault(state.type, []).append(state)
        if not by_type:
            self.observed_once = True
            return
        pending = set(by_type)

        def handler_for(type_name: str) -> Callable[[ResourceState, LiveResource | None, float], None]:
            def on_drift(state: ResourceState, live: LiveResource | None, at: float) -> None:
                self._on_observed(state, live, at)
                pending.discard(type_name)
                if not pending:
                    self.observed_once = True

            on_drift.__name__ = f"drift:{type_name}"
            return on_drift

        for type_name, states in by_type.items():
            self._observe_batch(type_name, states, handler_for(type_name), now)

    def _on_observed(self, state: ResourceState, live: LiveResource | None, now: float) -> None:
        name = state.name
        if (
            self.records.get(name) is not state
            or state.status is not RecordStatus.READY
            or name in self.in_flight
        ):
            return
        drift = detect_drift(state, live)
        if drift is Drift.IN_SYNC:
            if live is not None and _attributes_moved(state, live):
                state.attributes = {**state.attributes, **recorded_attributes(live)}
                self._mark_dirty(state)
            if live is not None and baseline_of(state) is None:
                remember_baseline(state, live)
                self._mark_dirty(state)
            return
        if self._is_external(name):
            self._external_drift(state, drift)
            return
        if (
            drift in (Drift.MISSING, Drift.FAILED)
            and state.type in DATA_BEARING_TYPES
            and not (self.is_group or self.group_member)
        ):
            # Replacing a failed one would delete it, and its data with it, once the new one is made.
            reason = (
                f"{state.type} {state.physical_id} vanished; the data it held cannot be recreated"
                if drift is Drift.MISSING
                else f"{state.type} {state.physical_id} is in error "
                f"({(live.status_reason if live else '') or 'the cloud reports ERROR'}); "
                "replacing it would delete the data it holds"
            )
            self.escalations[name] = reason
            self._fail_state(state, reason)
            self.settled.discard(name)  # what requires it waits for a person, untouched
            self.status_due = True
            return
        if not self.policy.self_heal:
            self.escalations.setdefault(name, f"drift: {drift.value}, not repaired (self_heal is off)")
            return
        self.drifted.add(name)
        self._mark_dirty(state)
        if drift is Drift.MISSING:
            state.physical_id = None
            state.status = RecordStatus.CREATE_IN_PROGRESS
            self.settled.discard(name)
            self._consider(name)
        elif drift is Drift.FAILED:
            self._replace_failed(
                state, (live.status_reason if live else "") or "the cloud reports ERROR", now
            )
        else:
            assert live is not None
            state.properties = {**state.properties, **plain_json(managed_drift(state, live))}
            self._unsettle(name)

    def _external_drift(self, state: ResourceState, drift: Drift) -> None:
        """An external resource is not ours to make again: gone or failed, it waits for a person."""
        if drift is Drift.CHANGED:
            return  # its properties are not ours either
        reason = f"external {state.type} {state.physical_id}: {drift.value}; it is not ours to repair"
        self.escalations[state.name] = reason
        self._fail_state(state, reason)
        self.settled.discard(state.name)
        self.status_due = True

    # Deleting what was replaced or pruned ----------------------------------------------------

    def _delete_retirees(self, now: float) -> None:
        if not self.retiring:
            return
        referenced = self._referenced_physical_ids()
        for state in list(self.retiring.values()):
            key = ("delete", id(state))
            if key in self.in_flight or key in self.retry_at:
                continue
            if not self._may_delete(state, referenced):
                continue
            self._delete(state, key, now)

    def _referenced_physical_ids(self) -> frozenset[str]:
        """Physical ids of retiring records that some record's properties still name.

        Asked on every pass while anything is retiring, so it is kept cheap: the answer is reused
        until a record changes (every change marks it dirty) or the retiring ids do, and each
        record's string leaves are kept beside the properties they were read from.
        """
        retiring_ids = frozenset(state.physical_id for state in self.retiring.values() if state.physical_id)
        cached = self._referenced
        if cached is not None and cached[0] == self._changes and cached[1] == retiring_ids:
            return cached[2]
        referenced: set[str] = set()
        for state in itertools.chain(self.records.values(), self.retiring.values()):
            leaves = state.leaves
            if leaves is None or leaves[0] is not state.properties:
                leaves = state.leaves = (state.properties, frozenset(string_leaves(state.properties)))
            if not retiring_ids.isdisjoint(leaves[1]):
                referenced.update(leaf for leaf in leaves[1] & retiring_ids if leaf != state.physical_id)
        self._referenced = (self._changes, retiring_ids, frozenset(referenced))
        return self._referenced[2]

    def _may_delete(self, state: ResourceState, referenced: frozenset[str]) -> bool:
        if state.delete_first:
            return True
        if state.physical_id is not None and state.physical_id in referenced:
            return False
        if state.successor is not None and state.name in self.graph:
            if state.name not in self.settled:
                return False
            return all(dependent in self.settled for dependent in self.dependents.get(state.name, ()))
        return self.policy.prune or self.removing

    def _delete(self, state: ResourceState, key: tuple[str, int], now: float) -> None:
        if state.deletion_policy == RETAIN and not self._is_nested_record(state):
            self._retain(state)
            return
        if state.physical_id is None:
            if self._late_create_out(state):
                return  # deleted, or forgotten, once its create is back
            unanswered = state.attempts > 0 and state.record_id is not None  # a create may have landed
            if unanswered and not self.providers.is_inline(state.type):
                self._find_left_behind(state, key, now)
            else:
                self._forget(state)
            return
        if state.type and state.physical_id == f"{self.name}/{state.name}" and self._is_nested_record(state):
            if self.context.nested.remove_nested(state.physical_id):
                self._forget(state, deleted=True)
            return
        provider = self.providers.provider_for(state.type)
        if provider is None:
            self._forget(state)
            return
        state.status = RecordStatus.DELETE_IN_PROGRESS
        self._mark_dirty(state)
        type_name, physical_id = state.type, state.physical_id

        refused = f"{state.name} ({physical_id})"  # where a refusal of this delete is reported

        def done(outcome: CallOutcome, at: float) -> None:
            if isinstance(outcome, Deleted):
                self.failures.pop(refused, None)  # an earlier refusal is over
                if outcome.snapshot is not None:
                    self.kept[refused] = f"snapshot {outcome.snapshot} made before it was deleted"
                self._forget(state, deleted=True)
            elif isinstance(outcome, RetryLater):
                state.attempts += 1
                state.last_error = outcome.message
                delay = self.context.settings.backoff.delay(
                    state.attempts, outcome.after, self.context.random
                )
                self.retry_at[key] = at + delay
            elif isinstance(outcome, Failed):
                # Reported, and tried again only after a back-off: a refused delete is not sent
                # again on every pass.
                state.attempts += 1
                state.last_error = self._without_secrets(outcome.message)
                self.failures[refused] = f"delete failed: {state.last_error}"
                delay = self.context.settings.backoff.delay(state.attempts, None, self.context.random)
                self.retry_at[key] = at + delay

        if state.deletion_policy == SNAPSHOT:
            marker = Marker(self.name, state.name, str(state.record_id))
            call = partial(call_snapshot_delete, provider, type_name, physical_id, marker)
            spec = CallSpec("snapshot_delete", self.policy.cloud, type_name, (physical_id,), marker=marker)
        else:
            call = partial(call_delete, provider, type_name, physical_id)
            spec = CallSpec("delete", self.policy.cloud, type_name, (physical_id,))
        if self.providers.is_inline(type_name):
            done(call(), now)
        else:
            abandon = partial(done, RetryLater("delete timed out"))
            self._dispatch(key, call, done, abandon, now, spec=spec)

    def _find_left_behind(self, state: ResourceState, key: tuple[str, int], now: float) -> None:
        """Search the marker of a retired record whose create was never answered: delete what it finds."""
        assert state.record_id is not None
        provider = self.providers.provider_for(state.type)
        if provider is None:
            self._forget(state)
            return
        marker = Marker(self.name, state.name, str(state.record_id))

        def done(outcome: CallOutcome, at: float) -> None:
            if isinstance(outcome, Applied):
                state.physical_id = outcome.live.physical_id  # deleted at the next pass
                self._mark_dirty(state)
            elif isinstance(outcome, Deleted):
                self._forget(state)
            else:
                state.attempts += 1
                if isinstance(outcome, Failed):
                    reason = f"searching for what its create left failed: {outcome.message}"
                    self.failures[f"{state.name} (record {state.record_id})"] = reason
                delay = self.context.settings.backoff.delay(state.attempts, None, self.context.random)
                self.retry_at[key] = at + delay

        call = partial(call_find, provider, state.type, marker)
        self._dispatch(key, call, done, lambda at: done(RetryLater("marker search timed out"), at), now)

    def _retain(self, state: ResourceState) -> None:
        """Heat's `Retain`: the resource stays in the cloud and leaves management; the note says so."""
        where = f"{state.name} ({state.physical_id})" if state.physical_id else state.name
        self.kept[where] = "retained: left in the cloud, no longer managed"
        self.counts["retained"] += 1
        self._forget(state)

    def _is_nested_record(self, state: ResourceState) -> bool:
        return self.providers.resource_type(state.type) is None

    def _forget(self, state: ResourceState, *, deleted: bool = False) -> None:
        self.retiring.pop(id(state), None)
        self._changes += 1
        self.dirty.pop(id(state), None)
        self.dirty_later.pop(id(state), None)
        if state.record_id is not None:
            self.deleted_record_ids.append(state.record_id)
        if deleted and state.successor is None:
            self.counts["deleted"] += 1

    # Status ----------------------------------------------------------------------------------

    def _settled_status(self) -> bool:
        return self.status in (StackStatus.CONVERGED, StackStatus.FAILED)

    def _summarize(self, now: float) -> None:
        complete = len(self.settled) == len(self.graph)
        acting = any(not (isinstance(key, tuple) and key[0] == "observe") for key in self.in_flight)
        pending_work = bool(
            acting or self.ready or self.waiting_ready or self.waiting_children or self.awaiting_ids
        )
        waiting = pending_work or bool(self.retry_at) or bool(self.retiring)
        observing = bool(self.records) and not self.observed_once and not self.removing
        status = summarize_status(
            complete=complete,
            waiting=waiting or observing,
            failed=bool(self.failures or self.escalations),
            drifted=bool(self.drifted),
        )
        reasons = tuple(str(failure) for failure in self.failure_list())
        # A FAILED stack's outputs follow its other resources too (a repair, a replacement): an
        # output of the failed resource itself reads as None, as Heat shows it.
        if self.outputs_stale and status in (StackStatus.CONVERGED, StackStatus.FAILED):
            self.outputs_stale = False
            outputs = self._resolve_outputs()
            if outputs != self.outputs or not self.outputs:
                self.outputs = outputs
                self.outputs_due = True
        if status is not self.status or reasons != self.status_reasons:
            self.status = status
            self.status_reasons = reasons
            self.status_due = True

    def _resolve_outputs(self) -> dict[str, Any]:
        if self.definition is None:
            return {}
        outputs: dict[str, Any] = {}
        for name in self.definition.outputs:
            try:
                outputs[name] = plain_json(self.definition.resolve_output(name, self.values))
            except Exception:  # an output of a failed resource: unknown, like Heat's None
                outputs[name] = None
        return outputs

    def failure_list(self) -> list[Failure]:
        """What needs a person; failures that only follow from an escalated resource are left out."""
        explained = {
            name
            for name in self.failures
            if name not in self.escalations and self.graph.get(name, frozenset()) & self.escalations.keys()
        }
        merged = {**{k: v for k, v in self.failures.items() if k not in explained}, **self.escalations}
        return [Failure(name, reason) for name, reason in sorted(merged.items())]

    def report(self) -> StackReport:
        counts = ActionCounts(
            created=self.counts["created"],
            updated=self.counts["updated"],
            replaced=self.counts["replaced"],
            deleted=self.counts["deleted"],
            retained=self.counts["retained"],
            unchanged=len(self.settled - self.acted),
        )
        return StackReport(
            stack=self.name,
            status=self.status,
            commit=self.commit,
            generation=self.generation,
            counts=counts,
            failures=tuple(self.failure_list()),
            superseded=tuple(self.superseded),
            resources=len(self.records),
            kept=tuple(f"{resource}: {what}" for resource, what in sorted(self.kept.items())),
        )

    # Writes ----------------------------------------------------------------------------------

    def take_writes(self, now: float) -> tuple[list[ResourceState], list[int]]:
        """The records to upsert and delete since the last write; the engine writes them in one batch.

        A record marked to be written soon goes now if its time came, or if it changed again since.
        """
        dirty, later, due = self.dirty, self.dirty_later, self.dirty_later_due
        while due and due[0][0] <= now:
            state = due.popleft()[1]
            if later.pop(id(state), None) is state:
                dirty[id(state)] = state
        if later:
            for key in dirty:
                later.pop(key, None)
        upserts = list(dirty.values())
        deletes, self.deleted_record_ids = self.deleted_record_ids, []
        self.dirty = {}
        return upserts, deletes


def _dispatch_order(pending: PendingCall) -> int:
    flight = pending.tag
    return flight.sequence if isinstance(flight, _InFlight) else -1


def _counts_as_sent(pending: PendingCall) -> bool:
    """Whether a returned call held a place among this pool's calls out (`sent_limit`)."""
    flight = pending.tag
    return not (isinstance(flight, _InFlight) and (flight.urgent or flight.elsewhere))


def _attributes_moved(state: ResourceState, live: LiveResource) -> bool:
    """Whether the cloud reports an attribute value other than the recorded one (cheap when not)."""
    recorded = state.attributes
    for name, value in live.attributes.items():
        if name not in UNRECORDED_ATTRIBUTES and recorded.get(name, _ABSENT) != value:
            return True
    return False


_ABSENT = object()
