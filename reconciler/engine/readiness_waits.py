"""Resources created or updated and still building: polled until READY, given up on at their deadline.

Which of them a poll observes is `readiness_polls`' choice; this module keeps who waits and until
when, sends the polls (batched per type, through `drift_observation`) and acts on their answers.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator
from functools import partial
from typing import TYPE_CHECKING

from providers.interface import LiveResource, LiveStatus
from reconciler.engine.drift import remember_baseline
from reconciler.engine.drift_observation import attributes_moved
from reconciler.engine.outcomes import RetryLater
from reconciler.engine.readiness_polls import Poll, ReadinessPolls
from reconciler.engine.record_rows import recorded_attributes
from reconciler.engine.resource_state import RecordStatus, ResourceState

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun

POLL = "poll"  # the first item of a readiness poll's key


class ReadinessWaits:
    """The resources waiting to be READY, each with its ready deadline, and their polls' pace."""

    def __init__(self, run: StackRun) -> None:
        self._run = run
        self._waiting: dict[str, float] = {}  # resource -> its ready deadline
        self._types: dict[str, tuple[str, bool]] = {}  # resource waiting -> its type, whether paced
        self._paced_waiting = 0  # how many of them are of paced types (`readiness_polls`)
        self._waiting_types: dict[str, int] = {}  # type -> how many of its resources wait
        self._paced_ids: dict[str, str] = {}  # physical id -> name, of the paced resources waiting
        self._paced_id_of: dict[str, str] = {}  # the other way round
        self._signalled: dict[str, set[str]] = {}  # type -> resources whose signal was kept, to poll
        self._signalled_at = 0.0
        self.next_poll_at = 0.0
        settings = run.context.settings
        self._polls = ReadinessPolls(self._paced, settings.signal_poll)

    def __contains__(self, name: str) -> bool:
        return name in self._waiting

    def __len__(self) -> int:
        return len(self._waiting)

    def next_wake(self) -> float | None:
        """The next poll's time; while only paced types wait, the end of their quiet."""
        if not self._waiting:
            return None
        observation = self._run.observation
        if any(not observation.out(type_name, self._on_signalled) for type_name in self._signalled):
            return self._signalled_at
        if self._paced_waiting < len(self._waiting):
            return self.next_poll_at
        quiet = min(self._polls.quiet_until(type_name) for type_name in self._waiting_types)
        return max(self.next_poll_at, quiet)

    def signals_kept(self, now: float, waiters: Collection[str] | None) -> None:
        """Signals were kept for `waiters` (physical ids; None: for any resource waiting for one):
        those of them waiting here are polled at once, by themselves (None: every resource waiting
        for a signal, by its type's next poll going at once)."""
        if not self._paced_waiting:
            return
        if waiters is None:
            if self._polls.poke_paced():
                self.poll_soon(now)
            return
        for waiter in waiters:
            name = self._paced_ids.get(waiter)
            if name is not None:
                self._poll_alone(name, now)

    def _poll_alone(self, name: str, now: float) -> None:
        """Observe `name` (waiting for a signal kept) by itself, at the next pass."""
        if not self._signalled:
            self._signalled_at = now
        self._signalled.setdefault(self._types[name][0], set()).add(name)

    def _paced(self, type_name: str) -> bool:
        entry = self._run.providers.resource_type(type_name)
        return entry is not None and entry.signalled

    def wait(self, name: str, now: float) -> None:
        """Wait for `name` to be READY, by the ready deadline from `now`.

        Entries are kept in the order their deadlines fall (one deadline for all, the clock moving
        forward): a name waiting again goes to the end, so the past ones are always at the front.
        A resource whose provider keeps its own time limit waits without one here; the scan of
        past deadlines steps over it.
        """
        self._forget(name)
        state = self._run.resources.records.get(name)
        self._waiting[name] = now + self._ready_deadline(name)
        type_name = state.type if state is not None else ""
        paced = self._paced(type_name)
        self._types[name] = (type_name, paced)
        self._waiting_types[type_name] = self._waiting_types.get(type_name, 0) + 1
        self._paced_waiting += paced
        if paced and state is not None and state.physical_id is not None:
            self._paced_ids[state.physical_id] = name
            self._paced_id_of[name] = state.physical_id
            lately = self._run.context.signalled_lately
            if lately is not None and lately(state.physical_id):
                self._poll_alone(name, now)  # its signal came before it waited here (`signals_kept`)

    def _forget(self, name: str) -> None:
        if self._waiting.pop(name, None) is not None:
            type_name, paced = self._types.pop(name)
            self._paced_waiting -= paced
            left = self._waiting_types.pop(type_name) - 1
            if left:
                self._waiting_types[type_name] = left
            physical_id = self._paced_id_of.pop(name, None)
            if physical_id is not None and self._paced_ids.get(physical_id) == name:
                del self._paced_ids[physical_id]

    def _ready_deadline(self, name: str) -> float:
        """The engine's ready deadline, unless the type's provider enforces the resource's own."""
        state = self._run.resources.records.get(name)
        entry = self._run.providers.resource_type(state.type) if state is not None else None
        if entry is not None and entry.own_deadline:
            return math.inf
        return self._run.context.settings.ready_deadline

    def poll_soon(self, now: float) -> None:
        self.next_poll_at = min(self.next_poll_at, now)

    def stop(self, name: str) -> None:
        self._forget(name)

    def poll(self, now: float) -> None:
        if not self._waiting:
            return
        if self._signalled:
            self._poll_signalled(now)
        interval = self._run.context.settings.readiness_poll
        interval_due = now >= self.next_poll_at
        if interval_due:
            self.next_poll_at = now + interval
            self._give_up_past_deadlines(now)
        polls = self._polls.choose(
            self._waiting_to_poll(), now=now, interval=interval, interval_due=interval_due, out=self._poll_out
        )
        records = self._run.resources.records
        observation = self._run.observation
        for poll in polls:
            states = [records[name] for name in poll.names]
            handle = self._on_readiness_swept if poll.sweep else self._on_readiness
            observation.observe_batch(poll.type_name, states, handle, now, partial(self._polled, poll))

    def _poll_signalled(self, now: float) -> None:
        """Observe the resources whose signal was kept, one call per type (a type's next, once
        the one out is back)."""
        records = self._run.resources.records
        observation = self._run.observation
        for type_name in list(self._signalled):
            if observation.out(type_name, self._on_signalled):
                continue
            names = self._signalled.pop(type_name)
            states = [
                state
                for name in sorted(names)
                if name in self._waiting
                and (state := records.get(name)) is not None
                and state.physical_id is not None
                and (POLL, name) not in self._run.flights
            ]
            if states:
                observation.observe_batch(type_name, states, self._on_signalled, now)

    def _give_up_past_deadlines(self, now: float) -> None:
        """Every operation has a deadline, whether or not an observation succeeds (DESIGN.md §4.6).

        Only the front of the waiting set is read, up to the first deadline still ahead (see
        `wait`), not every resource waiting at every interval.
        """
        past: list[str] = []
        for name, deadline in self._waiting.items():
            if deadline == math.inf:
                continue
            if deadline > now:
                break
            past.append(name)
        records = self._run.resources.records
        for name in past:
            state = records.get(name)
            if state is not None:
                self._run.actions.replace_failed(state, self._not_ready_in_time(state), now)

    def _waiting_to_poll(self) -> Iterator[tuple[str, str]]:
        """(name, type) of the resources waiting to be READY that can be observed, longest waiting first."""
        records = self._run.resources.records
        flights = self._run.flights
        for name in self._waiting:
            state = records.get(name)
            if state is not None and state.physical_id is not None and (POLL, name) not in flights:
                yield name, state.type

    def _poll_out(self, type_name: str, sweep: bool) -> bool:
        handle = self._on_readiness_swept if sweep else self._on_readiness
        return self._run.observation.out(type_name, handle)

    def _polled(self, poll: Poll, observed: bool) -> None:
        resolved = sum(1 for name in poll.names if name not in self._waiting) if observed else None
        self._polls.observed(poll, resolved)

    def _not_ready_in_time(self, state: ResourceState) -> str:
        """Why a resource still waiting past its ready deadline is given up on."""
        unseen = self._run.observation.error_for(state.type)
        if unseen is not None:
            return f"not seen READY by its deadline: observing {state.type} failed: {unseen}"
        return "still in progress past its deadline"

    def _on_readiness_swept(self, state: ResourceState, live: LiveResource | None, now: float) -> None:
        """A sweep's answer (see `readiness_polls`), handled as any poll's."""
        self._on_readiness(state, live, now)

    def _on_signalled(self, state: ResourceState, live: LiveResource | None, now: float) -> None:
        """The answer of a poll of resources whose signal was kept, handled as any poll's."""
        self._on_readiness(state, live, now)

    def _on_readiness(self, state: ResourceState, live: LiveResource | None, now: float) -> None:
        run = self._run
        name = state.name
        if run.resources.records.get(name) is not state or name not in self._waiting:
            return
        deadline = self._waiting[name]
        if live is None:
            self._forget(name)
            state.physical_id = None
            state.status = RecordStatus.CREATE_IN_PROGRESS
            run.writes.mark(state)
            run.actions.retry(state, RetryLater("the resource vanished while being built"), now)
        elif live.status is LiveStatus.READY:
            self._forget(name)
            state.status = RecordStatus.READY
            if attributes_moved(state, live):
                state.attributes = {**state.attributes, **recorded_attributes(live)}
            remember_baseline(state, live)
            run.writes.mark(state)
            run.finished(state, values_changed=True)
            run.suspension.follow(state, live, now)
        elif live.status is LiveStatus.FAILED:
            reason = live.status_reason or "the cloud reports the resource FAILED"
            if live.failure_is_final:
                self._forget(name)
                state.attributes = {**state.attributes, **recorded_attributes(live)}
                run.actions.fail_state(state, reason)
            else:
                run.actions.replace_failed(state, reason, now)
        elif now >= deadline:
            reason = f"still {live.status_reason or 'in progress'} past its deadline"
            run.actions.replace_failed(state, reason, now)
