"""Observation of a stack's live state, batched per type, and what drift it finds is done about.

Every `observe_interval` the READY resources are observed in one call per type (DESIGN.md §4.5).
A resource missing is created again, one in ERROR replaced, a property changed out of band put
back, all per the stack's `self_heal`; a data-bearing resource that vanished alone needs a person.
What an observation saw is checked a slice per pass (`observed_backlog`).
The same batched call serves readiness polls (`readiness_waits`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from providers.interface import LiveResource
from reconciler.engine.call_flights import OBSERVE
from reconciler.engine.call_specs import CallSpec
from reconciler.engine.drift import Drift, baseline_of, detect_drift, managed_drift, remember_baseline
from reconciler.engine.observed_backlog import ObservedBacklog
from reconciler.engine.outcomes import Observed, ObserveOutcome, RetryLater
from reconciler.engine.record_rows import UNRECORDED_ATTRIBUTES, plain_json, recorded_attributes
from reconciler.engine.resource_state import RecordStatus, ResourceState

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun

# Types whose physical resource holds data no recreate brings back: a lone one vanishing needs a person.
DATA_BEARING_TYPES = frozenset({"OS::Cinder::Volume"})

LiveHandler = Callable[[ResourceState, LiveResource | None, float], None]


class DriftObservation:
    """When the stack is observed next, why observing a type failed last, and drift's repair."""

    def __init__(self, run: StackRun) -> None:
        self._run = run
        self.next_observe_at = 0.0
        self.observed_once = False
        self._errors: dict[str, str] = {}  # type -> why its last observation failed
        self.backlog = ObservedBacklog()  # seen, not checked for drift yet

    def observe_by(self, moment: float) -> None:
        """Observe again no later than `moment` (a change of declared state, a suspend to retry)."""
        self.next_observe_at = min(self.next_observe_at, moment)

    def error_for(self, type_name: str) -> str | None:
        return self._errors.get(type_name)

    def observable(self, state: ResourceState) -> bool:
        providers = self._run.providers
        return (
            state.physical_id is not None
            and providers.resource_type(state.type) is not None
            and not providers.is_inline(state.type)
        )

    def observe_batch(
        self,
        type_name: str,
        states: list[ResourceState],
        handle: LiveHandler,
        now: float,
        finished: Callable[[bool], None] | None = None,
    ) -> None:
        """Observe `states` in one call; `finished(observed)` runs once every answer was handled."""
        run = self._run
        provider = run.providers.provider_for(type_name)
        if provider is None:
            return
        key = (OBSERVE, type_name, handle.__name__)
        if key in run.flights:
            return
        ids = tuple(state.physical_id for state in states if state.physical_id is not None)

        def done(outcome: ObserveOutcome, at: float) -> None:
            if not isinstance(outcome, Observed):
                self._errors[type_name] = outcome.message
                if finished is not None:
                    finished(False)
                return  # a failed observation is tried again at the next poll (deadlines still hold)
            self._errors.pop(type_name, None)
            for state in states:
                if state.physical_id is not None:
                    handle(state, outcome.live.get(state.physical_id), at)
            if finished is not None:
                finished(True)

        spec = CallSpec(OBSERVE, run.policy.cloud, type_name, ids)
        if run.providers.is_inline(type_name):
            done(cast("ObserveOutcome", spec.run_with(provider)), now)
        else:
            abandon = partial(done, RetryLater("observe call timed out"))
            run.flights.dispatch(key, spec, provider, done, abandon, now=now, urgent=True)

    def out(self, type_name: str, handle: LiveHandler) -> bool:
        """Whether an observation of the type for `handle` is still out."""
        return (OBSERVE, type_name, handle.__name__) in self._run.flights

    def handle_seen(self) -> None:
        """Check the next slice of what the last observation saw for drift."""
        self.backlog.handle_slice()

    def observe_if_due(self, now: float) -> None:
        run = self._run
        if now < self.next_observe_at or run.removing or run.definition is None or self.backlog:
            return  # the last observation's answers are checked first
        self.next_observe_at = now + run.policy.observe_interval
        graph = run.resources.graph
        by_type: dict[str, list[ResourceState]] = {}
        for state in run.resources.records.values():
            if state.status is RecordStatus.READY and state.name in graph and self.observable(state):
                by_type.setdefault(state.type, []).append(state)
        if not by_type:
            self.observed_once = True
            run.suspension.observed()
            return
        pending = set(by_type)

        def all_seen(type_name: str) -> None:
            pending.discard(type_name)
            if not pending:
                self.observed_once = True
                run.suspension.observed()

        def handler_for(type_name: str) -> LiveHandler:
            def on_drift(state: ResourceState, live: LiveResource | None, at: float) -> None:
                self.backlog.seen(state, live, at, self._on_observed)

            on_drift.__name__ = f"drift:{type_name}"
            return on_drift

        def finished_for(type_name: str) -> Callable[[bool], None]:
            def finished(observed: bool) -> None:
                if observed:
                    self.backlog.then(partial(all_seen, type_name))

            return finished

        for type_name, states in by_type.items():
            self.observe_batch(type_name, states, handler_for(type_name), now, finished_for(type_name))

    def _on_observed(self, state: ResourceState, live: LiveResource | None, now: float) -> None:
        run = self._run
        name = state.name
        if (
            run.resources.records.get(name) is not state
            or state.status is not RecordStatus.READY
            or name in run.flights
        ):
            return
        drift = detect_drift(state, live)
        if drift is Drift.IN_SYNC:
            if live is not None and attributes_moved(state, live):
                state.attributes = {**state.attributes, **recorded_attributes(live)}
                run.writes.mark(state)
            if live is not None and baseline_of(state) is None:
                remember_baseline(state, live)
                run.writes.mark(state)
            if live is not None:
                run.suspension.follow(state, live, now)
            return
        summary = run.summary
        if run.options.is_external(name):
            self._external_drift(state, drift)
            return
        if drift in (Drift.MISSING, Drift.FAILED) and state.type in DATA_BEARING_TYPES and not run.in_group:
            # Replacing a failed one would delete it, and its data with it, once the new one is made.
            reason = (
                f"{state.type} {state.physical_id} vanished; the data it held cannot be recreated"
                if drift is Drift.MISSING
                else f"{state.type} {state.physical_id} is in error "
                f"({(live.status_reason if live else '') or 'the cloud reports ERROR'}); "
                "replacing it would delete the data it holds"
            )
            summary.escalate(name, reason)
            run.actions.fail_state(state, reason)
            run.resources.hold(name)  # what requires it waits for a person, untouched
            summary.status_changed()
            return
        if not run.policy.self_heal:
            reason = f"drift: {drift.value}, not repaired (self_heal is off)"
            summary.escalate(name, reason, unless_escalated=True)
            return
        summary.drifting(name)
        run.writes.mark(state)
        if drift is Drift.MISSING:
            state.physical_id = None
            state.status = RecordStatus.CREATE_IN_PROGRESS
            run.resources.unsettle(name)
        elif drift is Drift.FAILED:
            reason = (live.status_reason if live else "") or "the cloud reports ERROR"
            run.actions.replace_failed(state, reason, now)
        else:
            assert live is not None
            state.properties = {**state.properties, **plain_json(managed_drift(state, live))}
            run.resources.unsettle(name)

    def _external_drift(self, state: ResourceState, drift: Drift) -> None:
        """An external resource is not ours to make again: gone or failed, it waits for a person."""
        if drift is Drift.CHANGED:
            return  # its properties are not ours either
        run = self._run
        reason = f"external {state.type} {state.physical_id}: {drift.value}; it is not ours to repair"
        run.summary.escalate(state.name, reason)
        run.actions.fail_state(state, reason)
        run.resources.hold(state.name)
        run.summary.status_changed()


def attributes_moved(state: ResourceState, live: LiveResource) -> bool:
    """Whether the cloud reports an attribute value other than the recorded one (cheap when not)."""
    recorded = state.attributes
    for name, value in live.attributes.items():
        if name not in UNRECORDED_ATTRIBUTES and recorded.get(name, _ABSENT) != value:
            return True
    return False


_ABSENT = object()
