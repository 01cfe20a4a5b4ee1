"""Acting on one decided resource: create, update in place, or replace (create first, delete later).

Every create carries its idempotency marker, named by the record id of its intent (written before
the call goes out), so a create retried, or sent again by the next owner, adopts what an earlier
attempt made instead of making a second one.

An abandoned create call keeps running: its resource may land in the cloud at any later time,
after a retry, a newer generation, a replacement or a prune. Its future stays watched (as a
"late-create" call in flight) until it comes back, and what it made is adopted when its record
still needs one, deleted otherwise: never left behind. Every marker names one set of inputs, so
whatever is found or lands under it is what the record says was asked for.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, cast

from providers.interface import LiveResource, LiveStatus, Marker
from reconciler.engine.call_flights import Flight
from reconciler.engine.call_specs import CallSpec
from reconciler.engine.deletion_policies import RETAIN
from reconciler.engine.drift import remember_baseline
from reconciler.engine.drift_observation import attributes_moved
from reconciler.engine.outcomes import Applied, CallOutcome, Failed, RetryLater, Vanished
from reconciler.engine.record_rows import recorded_attributes
from reconciler.engine.resource_state import RecordStatus, ResourceState
from reconciler.engine.retirement import LATE_CREATE

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun

# Conflicts (something in the way, not a failing cloud) refusing a replacement's create before its
# old copy is deleted first instead.
REPLACE_CONFLICTS_BEFORE_DELETE_FIRST = 2


class ResourceActions:
    """Creates, updates and replacements of one stack's resources, and what their calls come to."""

    def __init__(self, run: StackRun) -> None:
        self._run = run

    # Create ----------------------------------------------------------------------------------

    def create(
        self,
        name: str,
        type_name: str,
        desired: dict[str, Any],
        state: ResourceState | None,
        now: float,
        *,
        replacing: bool = False,
    ) -> None:
        run = self._run
        provider = run.provider(name, type_name)
        if provider is None:
            return
        records = run.resources.records
        if state is not None and self._marker_names_other_inputs(state, type_name, desired):
            state = self._fresh_record_for(state, type_name)
        if state is None or state.physical_id is not None:
            state = ResourceState(name, type_name, RecordStatus.CREATE_IN_PROGRESS, run.generation)
            records[name] = state
        # Known before the call goes out: an inline create answers at once, and a replacement
        # is counted as replaced only, never as created too.
        state.is_replacement = state.is_replacement or replacing
        state.type = type_name
        state.status = RecordStatus.CREATE_IN_PROGRESS
        state.generation = run.generation
        state.properties = desired
        state.last_error = None
        run.resources.acting_on(name)
        run.writes.mark(state)
        if run.providers.is_inline(type_name):
            state.marker_token = state.marker_token or f"n{run.context.random.getrandbits(48):012x}"
            marker = Marker(run.name, name, state.marker_token)
            spec = CallSpec("create", run.policy.cloud, type_name, properties=desired, marker=marker)
            self._on_create(state, cast("CallOutcome", spec.run_with(provider)), now)
            return
        created = state

        def dispatch() -> None:
            assert created.record_id is not None
            marker = Marker(run.name, name, str(created.record_id))
            spec = CallSpec(
                "create",
                run.policy.cloud,
                type_name,
                properties=desired,
                marker=marker,
                adopt_first=created.attempts > 0,
            )
            flight = run.flights.dispatch(
                name, spec, provider, partial(self._on_create, created), _not_yet, now=now
            )
            flight.on_abandon = partial(self._create_abandoned, created, flight)

        if state.record_id is None:
            run.flights.after_ids(dispatch)  # the marker needs the record id: written first
        else:
            dispatch()

    def _on_create(self, state: ResourceState, outcome: CallOutcome, now: float) -> None:
        run = self._run
        if state.physical_id is not None:  # an earlier attempt, back late, landed first
            if isinstance(outcome, Applied) and outcome.live.physical_id != state.physical_id:
                self._discard_duplicate(state, outcome.live)
            return
        if isinstance(outcome, Applied) and outcome.live.status is LiveStatus.IN_PROGRESS:
            run.writes.mark_soon(state, now + run.context.settings.building_write_delay)
        else:
            run.writes.mark(state)
        if isinstance(outcome, Applied):
            if not state.is_replacement:
                run.summary.count("created")
            self.apply_live(state, outcome.live, now, new_physical=True)
        elif isinstance(outcome, RetryLater):
            self.retry(state, outcome, now)
            if state.is_replacement and outcome.conflict:
                state.conflicts += 1
                if state.conflicts >= REPLACE_CONFLICTS_BEFORE_DELETE_FIRST:
                    self._delete_predecessor_first(state)
        elif isinstance(outcome, Failed):
            self.fail_state(state, outcome.message, sent_for=state.generation)
        else:
            self.retry(state, RetryLater("create answered as if the resource were gone"), now)

    # Creates that come back after their deadline ---------------------------------------------

    def _create_abandoned(self, state: ResourceState, flight: Flight, now: float) -> None:
        """The create call for `state` passed its deadline: retry (adopting by marker), keep watching."""
        self._on_create(state, RetryLater("create call timed out"), now)
        self._watch_late_create(state, flight, now)

    def _watch_late_create(self, state: ResourceState, flight: Flight, now: float) -> None:
        """Watch a create call still out under a key of its own, until it comes back."""
        self._run.flights.keep_watching(
            flight,
            (LATE_CREATE, id(state), flight.sequence),
            partial(self._late_create_back, state),
            partial(self._watch_late_create, state, flight),  # still out: keep watching
            now,
        )

    def _late_create_back(self, state: ResourceState, outcome: CallOutcome, now: float) -> None:
        if not isinstance(outcome, Applied):
            return  # nothing landed (a lost answer is found by marker: the retry or the deletion)
        run = self._run
        live = outcome.live
        if state.physical_id is not None:
            if live.physical_id != state.physical_id:
                self._discard_duplicate(state, live)
        elif run.resources.records.get(state.name) is state:
            run.resources.cancel_retry(state.name)
            self._on_create(state, Applied(live, adopted=True), now)
        elif state in run.retirement:
            state.physical_id = live.physical_id  # deleted as the retiree it is
            run.writes.mark(state)
        else:
            self._discard_duplicate(state, live)

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
        self._run.retirement.retire(duplicate)
        self._run.writes.mark(duplicate)

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
        run = self._run
        run.resources.records.pop(state.name, None)
        state.status = RecordStatus.RETIRED
        state.delete_first = True
        run.writes.mark(state)
        run.retirement.retire(state)
        fresh = ResourceState(state.name, type_name, RecordStatus.CREATE_IN_PROGRESS, run.generation)
        fresh.is_replacement = state.is_replacement
        state.successor = fresh  # not counted as deleted: nobody asked for what it may have made
        for old in run.retirement:
            if old.successor is state:
                old.successor = fresh
        run.resources.records[state.name] = fresh
        return fresh

    def _delete_predecessor_first(self, state: ResourceState) -> None:
        """Create-before-delete keeps conflicting: the old copy is in the way, so it goes first.

        Only conflicts lead here: when the cloud fails (5xx, timeouts) deleting the old copy first
        would throw a working resource away for nothing.
        """
        for old in self._run.retirement:
            if old.successor is state and not old.delete_first:
                old.delete_first = True

    # Update and replace ----------------------------------------------------------------------

    def update(
        self, state: ResourceState, desired: dict[str, Any], changed: frozenset[str], now: float
    ) -> None:
        run = self._run
        provider = run.provider(state.name, state.type)
        if provider is None or state.physical_id is None:
            return
        physical_id = state.physical_id
        type_name = state.type
        generation = run.generation
        run.resources.acting_on(state.name)

        def done(outcome: CallOutcome, at: float) -> None:
            run.writes.mark(state)
            if isinstance(outcome, Applied):
                run.summary.count("updated")
                state.properties = desired
                state.generation = generation
                state.status = RecordStatus.UPDATE_IN_PROGRESS
                self.apply_live(state, outcome.live, at, new_physical=False)
            elif isinstance(outcome, Vanished):
                state.physical_id = None
                run.resources.consider(state.name)
            elif isinstance(outcome, RetryLater):
                self.retry(state, outcome, at)
            elif isinstance(outcome, Failed):
                self.fail_state(state, outcome.message, sent_for=generation)

        spec = CallSpec(
            "update", run.policy.cloud, type_name, (physical_id,), properties=desired, changed=tuple(changed)
        )
        if run.providers.is_inline(type_name):
            done(cast("CallOutcome", spec.run_with(provider)), now)
        else:
            abandon = partial(done, RetryLater("update timed out"))
            run.flights.dispatch(state.name, spec, provider, done, abandon, now=now)

    def take_external(
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
        run = self._run
        if state is not None and state.physical_id == external_id and state.type == type_name:
            run.options.keep_deletion_policy(state, RETAIN)
            if state.status is not RecordStatus.FAILED:
                run.already_applied(state, now)
                return
        provider = run.provider(name, type_name)
        if provider is None:
            return
        taken = ResourceState(name, type_name, RecordStatus.CREATE_IN_PROGRESS, run.generation)
        taken.properties, taken.deletion_policy = desired, RETAIN
        records = run.resources.records
        if state is not None:  # re-pointed: what was taken (or made) before goes by its own policy
            records.pop(name, None)
            state.status = RecordStatus.RETIRED
            state.successor = taken
            run.writes.mark(state)
            run.retirement.retire(state)
        records[name] = taken
        run.resources.acting_on(name)
        run.writes.mark(taken)

        def done(outcome: CallOutcome, at: float) -> None:
            run.writes.mark(taken)
            if isinstance(outcome, Applied):
                self.apply_live(taken, outcome.live, at, new_physical=True)
            elif isinstance(outcome, RetryLater):
                self.retry(taken, outcome, at)
            elif isinstance(outcome, Failed):
                self.fail_state(taken, outcome.message, sent_for=taken.generation)

        spec = CallSpec("take_external", run.policy.cloud, type_name, (external_id,))
        if run.providers.is_inline(type_name):
            done(cast("CallOutcome", spec.run_with(provider)), now)
        else:
            abandon = partial(done, RetryLater("looking it up timed out"))
            run.flights.dispatch(name, spec, provider, done, abandon, now=now)

    def adopt(
        self, name: str, type_name: str, physical_id: str, desired: dict[str, Any], *, policy: str, now: float
    ) -> None:
        """Take the existing `physical_id` as this resource, fully managed from now on (Heat's adopt).

        Its properties are recorded as the template's, as Heat's adopt stores them: nothing is
        applied now, later changes of the template update it, and its deletion policy is the
        template's, so removing it deletes it unless the policy keeps it.
        """
        run = self._run
        provider = run.provider(name, type_name)
        if provider is None:
            return
        taken = ResourceState(name, type_name, RecordStatus.CREATE_IN_PROGRESS, run.generation)
        taken.properties, taken.deletion_policy = desired, policy
        run.resources.records[name] = taken
        run.resources.acting_on(name)
        run.writes.mark(taken)

        def done(outcome: CallOutcome, at: float) -> None:
            run.writes.mark(taken)
            if isinstance(outcome, Applied):
                run.summary.count("adopted")
                self.apply_live(taken, outcome.live, at, new_physical=True)
            elif isinstance(outcome, RetryLater):
                self.retry(taken, outcome, at)
            elif isinstance(outcome, Failed):
                message = outcome.message.replace("external_id must name", "adopt data must name")
                self.fail_state(taken, message, sent_for=taken.generation)

        spec = CallSpec("take_external", run.policy.cloud, type_name, (physical_id,))
        if run.providers.is_inline(type_name):
            done(cast("CallOutcome", spec.run_with(provider)), now)
        else:
            abandon = partial(done, RetryLater("looking it up timed out"))
            run.flights.dispatch(name, spec, provider, done, abandon, now=now)

    def replace(
        self, state: ResourceState, type_name: str, desired: dict[str, Any], *, failing: bool, now: float
    ) -> None:
        """Create the new one first; the old one is deleted once its dependents have moved."""
        run = self._run
        summary = run.summary
        if failing:
            replacements = summary.replaced_failing(state.name)
            if replacements > run.context.settings.max_replacements:
                reason = f"replaced {replacements - 1} times and still failing"
                escalation = f"{reason}: {state.last_error or 'no reason given'}"
                summary.escalate(state.name, escalation)
                self.fail_state(state, escalation)
                return
        summary.count("replaced")
        state.status = RecordStatus.RETIRED
        run.writes.mark(state)
        records = run.resources.records
        records.pop(state.name, None)
        run.retirement.retire(state)
        self.create(state.name, type_name, desired, None, now, replacing=True)
        state.successor = records.get(state.name)

    def apply_live(self, state: ResourceState, live: LiveResource, now: float, *, new_physical: bool) -> None:
        """A create or update came back with `live`: ready, still building, or failed in the cloud."""
        run = self._run
        previous_attributes = state.attributes
        state.physical_id = live.physical_id
        # A resource just created and still building is read again once READY (`readiness_waits`):
        # its attributes and the baseline for drift are taken then, not twice.
        if not (new_physical and live.status is LiveStatus.IN_PROGRESS):
            if attributes_moved(state, live):
                state.attributes = {**state.attributes, **recorded_attributes(live)}
            remember_baseline(state, live)
        state.attempts = 0
        state.next_attempt_at = None
        if live.status is LiveStatus.READY:
            state.status = RecordStatus.READY
            run.finished(state, values_changed=new_physical or state.attributes != previous_attributes)
            run.suspension.follow(state, live, now)
        elif live.status is LiveStatus.IN_PROGRESS:
            run.readiness.wait(state.name, now)
        elif live.failure_is_final:
            self.fail_state(state, live.status_reason or "the cloud reports the resource FAILED")
        else:
            state.status = RecordStatus.FAILED
            state.last_error = live.status_reason or "the cloud reports the resource FAILED"
            self.replace_failed(state, state.last_error, now)

    # What a failed call means ----------------------------------------------------------------

    def fail(self, name: str, reason: str) -> None:
        run = self._run
        reason = run.without_secrets(reason)
        run.summary.fail(name, reason)
        state = run.resources.records.get(name)
        if state is not None:
            state.status = RecordStatus.FAILED
            state.last_error = reason
            run.writes.mark(state)

    def fail_state(self, state: ResourceState, message: str, *, sent_for: int | None = None) -> None:
        """The resource failed; `sent_for` is the generation a failed call was sent for.

        A call's refusal that arrives after a newer generation took over says nothing about the
        newest one (supersede, never block): the resource is decided afresh against it.
        """
        run = self._run
        message = run.without_secrets(message)
        state.status = RecordStatus.FAILED
        state.last_error = message
        run.writes.mark(state)
        if sent_for is not None and sent_for != run.generation:
            run.resources.consider(state.name)
            return
        if run.resources.records.get(state.name) is state and state.name in run.resources.graph:
            run.summary.fail(state.name, message)

    def retry(self, state: ResourceState, outcome: RetryLater, now: float) -> None:
        run = self._run
        settings = run.context.settings
        state.attempts += 1
        state.last_error = outcome.message
        if state.attempts >= settings.max_attempts:
            self.fail_state(state, f"gave up after {state.attempts} attempts: {outcome.message}")
            return
        delay = settings.backoff.delay(state.attempts, outcome.after, run.context.random)
        state.next_attempt_at = now + delay
        run.resources.retry_after(state.name, state.next_attempt_at)
        run.writes.mark(state)

    def replace_failed(self, state: ResourceState, reason: str, now: float) -> None:
        """A resource failed in the cloud (ERROR, stuck building): decide it again, as a replacement."""
        run = self._run
        state.status = RecordStatus.FAILED
        state.last_error = reason
        run.writes.mark(state)
        run.readiness.stop(state.name)
        run.summary.failure_over(state.name)
        run.resources.unsettle(state.name)


def _not_yet(_: float) -> None:
    """A create's abandon handler until its flight is known (it refers to the flight)."""
