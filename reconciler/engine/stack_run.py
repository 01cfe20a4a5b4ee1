"""The coordinator of one stack: its desired state, one decision per ready resource, one pass at a time.

There are NO locks: the engine runs a stack's passes one after another on one thread. A pass
(`step`) collects the calls that came back, decides what is ready, polls what is building,
observes when due, deletes what retired, and returns what it learned as a `PassResult`, which the
engine writes with every other stack's, each shard's part fenced. The concerns live beside this module:

- `resource_graph`: the ready set (what is settled, what may be decided next);
- `call_flights`: calls in flight, their deadlines and dispatch (this pool, or another worker's);
- `resource_actions`: create, update, replace, and creates that come back late;
- `readiness_waits`: resources still building, polled until READY;
- `drift_observation`: the periodic observation and what drift it finds is done about;
- `retirement`: replaced and pruned records, deleted once nothing refers to them;
- `failure_retries`: resources FAILED for a permanent cause, tried again slowly or when asked;
- `nested_children`: nested stacks the stack waits on;
- `suspension`: the declared `state` (suspended or active) kept on the stack's servers;
- `pass_summary` and `dirty_records`: status, outputs and the records to write.

A new generation never waits for the old one: calls in flight complete and their results are
recorded, then each resource is decided again against the newest definition.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import Provider
from reconciler.engine.call_flights import CallFlights
from reconciler.engine.call_pool import PendingCall
from reconciler.engine.desired import DesiredStack, Policy
from reconciler.engine.dirty_records import DirtyRecords
from reconciler.engine.drift_observation import DriftObservation
from reconciler.engine.failure_retries import FailureRetries
from reconciler.engine.group_batches import GroupBatches
from reconciler.engine.group_scaling import GroupScaling
from reconciler.engine.nested_children import NestedChildren
from reconciler.engine.nested_values import NestedValues
from reconciler.engine.pass_result import PassResult
from reconciler.engine.pass_summary import PassSummary
from reconciler.engine.provider_set import ProviderSet
from reconciler.engine.readiness_waits import ReadinessWaits
from reconciler.engine.record_rows import plain_json
from reconciler.engine.report import StackReport
from reconciler.engine.resolution_record import note_resolution, resolution_digest
from reconciler.engine.resource_actions import ResourceActions
from reconciler.engine.resource_graph import ResourceGraph
from reconciler.engine.resource_options import ResourceOptions
from reconciler.engine.resource_state import RecordStatus, ResourceState
from reconciler.engine.retirement import Retirement
from reconciler.engine.run_context import RunContext
from reconciler.engine.run_spec import RunSpec
from reconciler.engine.stack_status import StackStatus
from reconciler.engine.suspension import Suspension
from reconciler.engine.unchanged_inputs import inputs_beside_template_unchanged
from reconciler.plan import Action, RecordedResource, ResourcePlan, plan_resource

# OS::Heat::UpdateWaitConditionHandle: a new handle (a new URL) at every update of its stack, so
# whatever waits on it waits for fresh signals.
RENEWED_AT_EVERY_UPDATE = frozenset({"OS::Heat::UpdateWaitConditionHandle"})


@dataclass(frozen=True)
class Desire:
    """What a stack converges to: a generation of a commit, its definition (None: nothing), its spec."""

    generation: int
    commit: str
    definition: DesiredStack | None
    spec: RunSpec


@dataclass(frozen=True, slots=True)
class RunProgress:
    """Whether a stack has calls out or work ready, and when it next needs a pass without one."""

    in_flight: int
    busy: bool
    next_wake: float | None


class StackRun:
    """Converges one stack; the engine calls `set_desired`, then `step` once or more per pass."""

    def __init__(self, name: str, shard: int, providers: ProviderSet, context: RunContext) -> None:
        self.name = name
        self.shard = shard
        self.providers = providers
        self.context = context
        self.definition: DesiredStack | None = None  # what it works on (a group's batch may resize it)
        self._desired_definition: DesiredStack | None = None
        self.spec = RunSpec.root(name, Policy())
        self.generation = 0
        self.commit: str | None = None
        self.approved = False  # whether this commit's destructive actions were approved
        self.removing = False
        self._previous_definition: DesiredStack | None = None
        self._reuse_decisions = False
        self._told = True  # something outside a pass changed what the run works on: a pass is due
        # The coordinator's concerns: they reach one another through the run; the engine uses only
        # the methods below (step, take_result, progress, desire, report, ...), never these.
        self.resources = ResourceGraph()
        self.writes = DirtyRecords()
        self.flights = CallFlights(name, shard, context)
        self.flights.priority_of = self.resources.level_of
        self.summary = PassSummary()
        self.batches = GroupBatches(self)
        self.actions = ResourceActions(self)
        self.readiness = ReadinessWaits(self)
        self.observation = DriftObservation(self)
        self.retirement = Retirement(self)
        self.children = NestedChildren(self)
        self.values = NestedValues(self)
        self.options = ResourceOptions(self)
        self.failure_retries = FailureRetries(self)
        self.suspension = Suspension(self)
        self.scaling = GroupScaling(self, context.group_sizes)

    @property
    def policy(self) -> Policy:
        return self.spec.policy

    @property
    def in_group(self) -> bool:
        """A group, or a member of one: a lone data-bearing resource vanishing is not escalated."""
        return self.spec.is_group or self.spec.group_member

    # Desired state and records ---------------------------------------------------------------

    def load(self, records: Iterable[ResourceState]) -> None:
        """Rebuild from the store's records after a takeover (or a restart)."""
        self._told = True
        current = self.resources.records
        for state in records:
            self.scaling.noticed(state.type)
            if state.status in (RecordStatus.RETIRED, RecordStatus.DELETE_IN_PROGRESS):
                self.retirement.retire(state)
            elif state.name in current:  # an unfinished replacement: the newest record wins
                older = current[state.name]
                older.successor = state
                older.status = RecordStatus.RETIRED
                self.retirement.retire(older)
                self.writes.mark(older)
                current[state.name] = state
            else:
                current[state.name] = state
            if state.status is RecordStatus.CREATE_IN_PROGRESS and state.physical_id is None:
                state.attempts = max(state.attempts, 1)  # a create may have happened: adopt by marker first
        # A replaced record waits for its successor's dependents before it is deleted: link them again.
        by_record_id = {state.record_id: state for state in current.values() if state.record_id}
        for state in self.retirement:
            if state.successor is None and state.recorded_replaced_by is not None:
                state.successor = by_record_id.get(state.recorded_replaced_by)

    def set_desired(self, desire: Desire) -> None:
        """Converge to `desire` from now on (a definition of None: nothing, the stack is going away)."""
        self._told = True
        self.summary.new_generation(self.commit, self.generation, desire.commit)
        if desire.commit != self.commit:
            self.approved = False  # an approval is of one commit
        self._previous_definition = self.definition
        self._reuse_decisions = (
            self._desired_definition is not None
            and desire.definition is not None
            and inputs_beside_template_unchanged(self._desired_definition, desire.definition)
        )
        self._desired_definition = desire.definition
        definition = self.batches.start(desire.spec.batch, desire.definition)
        self.definition = definition
        self.removing = definition is None
        self.generation = desire.generation
        self.commit = desire.commit
        was_suspended = self.spec.policy.suspended
        self.spec = desire.spec
        self.suspension.declared(was_suspended)
        graph = definition.graph() if definition is not None else {}
        self.resources.reset(graph)
        self.failure_retries.reset()
        self.retirement.retire_pruned()
        for name in graph:
            self.resources.consider(name)

    def needs_approval(self, action: str) -> bool:
        """Whether `action` ("replace", "delete") of this commit waits for an approval."""
        return action in self.policy.require_approval and not self.approved

    def approve(self) -> None:
        """The commit is approved: what waited for it is decided again."""
        if self.approved:
            return
        self.approved = True
        self._told = True
        waiting = list(self.summary.awaiting)
        self.summary.awaiting = {}
        self.summary.status_changed()
        self.retirement.retire_pruned()
        for name in waiting:
            if name in self.resources.graph:
                self.resources.consider(name)

    def recommitted(self, commit: str) -> None:
        """A newer commit whose definition is this generation's: the stack is at `commit` from now on."""
        if commit != self.commit:
            self._told = True
            self.summary.recommitted()
            self.commit = commit
            self.approved = False

    def rebuilt(self, records: Iterable[ResourceState]) -> StackRun:
        """A fresh coordinator for the same stack and desire, from the store's `records` (a takeover)."""
        fresh = StackRun(self.name, self.shard, self.providers, self.context)
        fresh.scaling.log = self.scaling.log
        fresh.load(records)
        fresh.set_desired(self.desire())
        return fresh

    def work_on(self, definition: DesiredStack) -> None:
        """A group's batch works on `definition`: its members with or without temporary ones."""
        self._told = True
        self.definition = definition
        graph = definition.graph()
        self.resources.reset(graph)
        self.retirement.retire_pruned()
        for name in graph:
            self.resources.consider(name)

    def desire(self) -> Desire:
        return Desire(self.generation, self.commit or "", self._desired_definition, self.spec)

    def at_generation(self, generation: int) -> bool:
        """Whether the stack converges to a definition at `generation` already."""
        return self.definition is not None and self.generation == generation

    def remove(self, generation: int, *, retain: bool = False) -> None:
        """Converge to nothing from `generation` on (once: a stack being removed stays so).

        `retain`: the stack goes under a `Retain` policy, so every resource in it stays in the cloud.
        """
        if not self.removing:
            # no longer a group: nothing is paced
            spec = RunSpec(self.spec.lineage, self.policy, retain_all=retain or self.spec.retain_all)
            self.set_desired(Desire(generation, self.commit or "", None, spec))

    def empty(self) -> bool:
        """Nothing recorded, retiring or in flight: a stack removed is gone."""
        return not self.resources.records and not self.retirement and not len(self.flights)

    # The pass --------------------------------------------------------------------------------

    def step(self, now: float) -> PassResult:
        """One non-blocking pass: collect results, decide what is ready, observe when due."""
        self._told = False
        self.flights.collect(now)
        self.observation.handle_seen()
        for key in self.resources.due_retries(now):
            if isinstance(key, str):
                self.resources.consider(key)
        self.failure_retries.due(now)
        self.children.check_all()
        self.batches.advance(now)
        self._drain_ready(now)
        self.readiness.poll(now)
        self.observation.observe_if_due(now)
        self.retirement.delete_due(now)
        self._summarize(now)
        return self.take_result(now)

    def retry_failed(self, resource: str | None, now: float, *, escalated: bool) -> int:
        """Retry the FAILED resources (or `resource`) at once; escalated ones only when a person asks."""
        self._told = True
        return self.failure_retries.retry_now(resource, now, escalated=escalated)

    def take_result(self, now: float) -> PassResult:
        """The writes due since the last result (at `now`: records held back whose time came)."""
        upserts, deletes = self.writes.take(now)
        status, outputs = self.summary.take(self.generation)
        superseded = tuple(self.summary.superseded.values()) if status is not None else ()
        requests = self.children.take_requests()
        return PassResult(tuple(upserts), tuple(deletes), status, outputs, superseded, requests)

    def child_submitted(self, resource: str, generation: int) -> None:
        """The engine's answer to a `SubmitChild`: the child's generation."""
        self._told = True
        self.children.submitted(resource, generation)

    def child_removed(self, child: str) -> None:
        """The engine's answer to a `RemoveChild`: the child holds no resources any more."""
        self._told = True
        self.children.removed(child)

    def answered(self, now: float) -> PassResult:
        """The result of the pass again, once the engine answered its child requests."""
        self._summarize(now)
        return self.take_result(now)

    def holds_writes_for_later(self) -> bool:
        return self.writes.holds_later()

    def ids_assigned(self) -> None:
        """The engine wrote the intents: dispatch the creates that waited for their record ids."""
        self.flights.ids_assigned()
        for state in self.retirement:
            if state.replaced_by != state.recorded_replaced_by:
                self.writes.mark(state)  # written again, now that its successor has an id

    def progress(self) -> RunProgress:
        return RunProgress(len(self.flights), self._busy(), self._next_wake())

    def _next_wake(self) -> float | None:
        """When this stack next needs a pass without any call coming back (None: never)."""
        times = [
            self.resources.next_retry(),
            self.batches.resume_at(),
            self.readiness.next_wake(),
            self.flights.next_deadline(),
            self.writes.next_due(),
            self.failure_retries.next_wake(),
        ]
        if self.resources.graph and self.resources.records and not self.removing:
            times.append(self.observation.next_observe_at)
        due = [time for time in times if time is not None]
        return min(due) if due else None

    def idle_progress(self, now: float) -> RunProgress | None:
        """The run's progress if a pass now would find nothing to do (nothing came back or was told
        since the last one, nothing ready or due, no nested stack waited on); None: it needs one.
        Most of a large tree's stacks have nothing to do at any pass, and the engine skips them."""
        if self._told or self.flights.has_news() or self.resources.has_ready() or len(self.children):
            return None
        if self.retirement or self.observation.backlog or self.batches.can_advance() or self.scaling.moving():
            return None
        wake = self._next_wake()
        if (wake is not None and wake <= now) or self.suspension.busy():
            return None
        in_flight = len(self.flights)
        return RunProgress(in_flight, bool(in_flight), wake)

    def can_move(self) -> bool:
        """Whether another pass now would do something: ready work, or a nested stack that settled."""
        if self.resources.has_ready() and self.flights.outstanding() < self.context.settings.in_flight_limit:
            return True
        return self.children.any_settled()

    def _busy(self) -> bool:
        """Something can move without time passing: calls to collect, decisions to take."""
        flights = self.flights
        return bool(
            len(flights)
            or self.resources.has_ready()
            or flights.awaiting_ids()
            or self.batches.can_advance()
            or self.observation.backlog
        )

    def has_calls_out(self) -> bool:
        """Whether a call of this stack was sent and has not come back (safe from any thread)."""
        return self.flights.sent_and_not_back()

    def calls_out(self) -> tuple[list[PendingCall], list[PendingCall]]:
        """The calls out: (on this worker's pool, queued for any worker)."""
        return self.flights.pending_calls()

    def _drain_ready(self, now: float) -> None:
        limit = self.context.settings.in_flight_limit
        resources, flights, batches = self.resources, self.flights, self.batches
        while resources.has_ready() and flights.outstanding() < limit:
            name = resources.next_ready()
            if batches.allows(name):
                self._decide(name, now)

    def _summarize(self, now: float) -> None:
        self.failure_retries.schedule(now)
        flights = self.flights
        pending_work = bool(
            flights.acting()
            or self.resources.has_ready()
            or len(self.readiness)
            or self.children.moving(self.summary.awaiting)
            or flights.awaiting_ids()
            or self.batches.holding()
        )
        waiting = (
            pending_work or self.resources.any_retrying() or bool(self.retirement) or self.suspension.busy()
        )
        observing = bool(self.resources.records) and not self.observation.observed_once and not self.removing
        self.summary.summarize(
            self.resources.graph,
            complete=self.resources.complete(),
            waiting=waiting or observing,
            suspended=self.policy.suspended,
            resolve_outputs=self._resolve_outputs,
        )

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

    # Deciding one resource -------------------------------------------------------------------

    def _under_way(self, name: str) -> bool:
        """A call, a wait, a retry or a failure holds `name`, or it is settled: nothing to decide."""
        if name in self.flights or name in self.readiness or name in self.children:
            return True
        resources = self.resources
        return resources.retrying(name) or self.summary.failed(name) or resources.is_settled(name)

    def _take_existing(
        self,
        name: str,
        type_name: str,
        desired: dict[str, Any],
        *,
        state: ResourceState | None,
        external_id: str | None,
        deletion_policy: str,
        now: float,
    ) -> bool:
        """Take `name` as it exists in the cloud (its external id, or the id adopt data gives it)."""
        if external_id is not None:
            self.actions.take_external(name, type_name, external_id, desired, state, now=now)
            return True
        adopted = self.adopted_id(name, state)
        if adopted is not None:
            self.actions.adopt(name, type_name, adopted, desired, policy=deletion_policy, now=now)
            return True
        return False

    def _decide(self, name: str, now: float) -> None:
        if self._under_way(name):
            return
        resources = self.resources
        assert self.definition is not None
        resource = self.definition.resources[name]
        state = resources.records.get(name)
        if self._decision_still_holds(name, resource, state):
            assert state is not None
            state.generation = self.generation
            self.settle(name, values_changed=False)
            return
        self.scaling.noticed(resource.type)
        resolved = self.options.resolved(name, resource)
        if resolved is None:
            return
        desired, deletion_policy, external_id = resolved
        if resource.nested_kind is not None:
            if self.children.usable(name, resource):
                self.children.converge(name, type_name=resource.type, desired=desired, state=state, now=now)
                self.options.keep_deletion_policy(self.resources.records.get(name), deletion_policy)
            return
        if self._take_existing(
            name,
            resource.type,
            desired,
            state=state,
            external_id=external_id,
            deletion_policy=deletion_policy,
            now=now,
        ):
            return
        inputs = resolution_digest(self.definition, name, self.values)
        recorded = None
        if state is not None:
            failed = state.status is RecordStatus.FAILED
            recorded = RecordedResource(name, state.type, state.physical_id, state.properties, failed=failed)
        plan = plan_resource(name, resource.type, desired, recorded, self.providers)
        self.options.keep_deletion_policy(state, deletion_policy)
        if not self._act(plan, resource.type, desired, state, now):
            return
        record = self.resources.records.get(name)
        if note_resolution(record, state, desired, inputs, plan.action):
            assert record is not None
            self.writes.mark(record)
        self.options.keep_deletion_policy(record, deletion_policy)

    def _act(
        self,
        plan: ResourcePlan,
        type_name: str,
        desired: dict[str, Any],
        state: ResourceState | None,
        now: float,
    ) -> bool:
        """Start what `plan` says (False: a replacement waits for an approval)."""
        if plan.action is Action.CREATE:
            self.actions.create(plan.name, type_name, desired, state, now)
            return True
        assert state is not None
        if plan.action is Action.UNCHANGED:
            self._unchanged(state, type_name, desired, now)
        elif plan.action is Action.UPDATE:
            self.actions.update(state, desired, plan.changed, now)
        else:
            failing = "status" in plan.replace_reasons
            if not failing and self.needs_approval("replace"):  # a repair of drift needs none
                self.summary.await_approval(plan.name, "replace")
                return False
            self.actions.replace(state, type_name, desired, failing=failing, now=now)
        return True

    def _unchanged(self, state: ResourceState, type_name: str, desired: dict[str, Any], now: float) -> None:
        """Nothing to apply; but a type Heat makes anew at every update of its stack, last made at an
        earlier generation, is replaced."""
        renewed = (
            type_name in RENEWED_AT_EVERY_UPDATE
            and state.status is RecordStatus.READY
            and state.generation != self.generation
        )
        if renewed:
            self.actions.replace(state, type_name, desired, failing=False, now=now)
        else:
            self.already_applied(state, now)

    def _decision_still_holds(self, name: str, resource: Any, state: ResourceState | None) -> bool:
        """Settled last generation with the same definition, and nothing it reads changed since."""
        if not self._reuse_decisions or state is None or state.status is not RecordStatus.READY:
            return False
        resources = self.resources
        if not resources.settled_before_and_unchanged(name):
            return False
        previous = self._previous_definition.resources.get(name) if self._previous_definition else None
        return (
            previous is not None
            and resource.nested_kind is None
            and previous == resource
            and resource.type not in RENEWED_AT_EVERY_UPDATE
        )

    def adopted_id(self, name: str, state: ResourceState | None) -> str | None:
        """The physical id the adopt data names for `name`, while it has no record (never made)."""
        adopt = self.spec.adopt
        entry = adopt.get(name) if adopt is not None and state is None else None
        return None if entry is None else entry.physical_id

    def already_applied(self, state: ResourceState, now: float) -> None:
        if state.status is RecordStatus.READY:
            if state.generation != self.generation:
                state.generation = self.generation
            self.settle(state.name, values_changed=False)
        elif state.physical_id is not None:  # created or updated before; not ready yet
            self.readiness.wait(state.name, now)
            self.readiness.poll_soon(now)

    # What the concerns report back -----------------------------------------------------------

    def provider(self, name: str, type_name: str) -> Provider | None:
        provider = self.providers.provider_for(type_name)
        if provider is None:
            self.actions.fail(name, f"no provider serves {type_name} on cloud {self.policy.cloud!r}")
        return provider

    def is_nested_record(self, state: ResourceState) -> bool:
        return self.providers.resource_type(state.type) is None

    def without_secrets(self, text: str) -> str:
        """`text` with the stack's hidden parameter values masked (failures reach the store)."""
        return self.definition.without_secrets(text) if self.definition is not None else text

    def settle(self, name: str, *, values_changed: bool) -> None:
        if values_changed:
            self.summary.outputs_stale = True
        self.summary.drift_repaired(name, f"{self.name}: {name}")
        self.failure_retries.succeeded(name)
        if values_changed:
            self.failure_retries.inputs_moved(self.resources.dependents_of(name))
        self.resources.settle(name, values_changed=values_changed)

    def finished(self, state: ResourceState, *, values_changed: bool) -> None:
        """A call for `state` came back successful: settle it if it was for the current generation."""
        name = state.name
        if name not in self.resources.graph:
            self.retirement.retire_pruned()
        elif state.generation == self.generation and self.resources.records.get(name) is state:
            self.settle(name, values_changed=values_changed)
        else:
            self.resources.consider(name)

    def nested_changed(self, name: str, *, converged: bool = True) -> None:
        """The nested stack of `name` moved on its own: read its values anew when it converged
        again (drift repaired); decide `name` again if it failed because of the child."""
        self._told = True
        self.children.changed(name, converged=converged)

    # Reading ---------------------------------------------------------------------------------

    def status(self) -> StackStatus:
        return self.summary.status

    def outputs(self) -> Mapping[str, Any]:
        return self.summary.outputs

    def waiting_on_children(self) -> list[str]:
        return self.children.waited_on()

    def members(self) -> dict[str, Mapping[str, Any]]:
        """A group's members, in the definition's order: name -> physical id and attributes."""
        records = self.resources.records
        order = list(self.definition.resources) if self.definition is not None else list(records)
        members: dict[str, Mapping[str, Any]] = {}
        for name in order:
            state = records.get(name)
            if state is not None:
                members[name] = {"physical_id": state.physical_id, "attributes": state.attributes}
        return members

    def report(self) -> StackReport:
        resources = self.resources
        summary = self.summary
        return StackReport(
            stack=self.name,
            status=summary.status,
            commit=self.commit,
            generation=self.generation,
            counts=summary.action_counts(resources.unchanged()),
            failures=(*summary.failure_list(resources.graph), *summary.awaiting_failures()),
            superseded=tuple(summary.superseded),
            resources=len(resources.records),
            kept=summary.kept(),
            drift_repairs=summary.tally.repairs,
            recent_repairs=tuple(summary.tally.recent),
            scalings=self.scaling.log.at(self.commit),
        )
