"""Records on their way out: replaced or pruned resources, deleted once nothing refers to them.

A replaced record waits for its successor and the successor's dependents to settle (create before
delete); a pruned one goes at once, in reverse dependency order, since a record whose physical id
another record's properties still name waits. A retired record whose create was never answered is
looked for by its marker first, and what that finds is deleted too: nothing is left behind.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING, cast

from providers.interface import Marker
from reconciler.engine.call_specs import CallSpec
from reconciler.engine.deletion_policies import RETAIN, SNAPSHOT
from reconciler.engine.outcomes import Applied, CallOutcome, Deleted, Failed, RetryLater
from reconciler.engine.resource_state import RecordStatus, ResourceState
from reconciler.plan.deletion_order import string_leaves

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun

DELETE = "delete"  # the first item of a delete's key
LATE_CREATE = "late-create"  # the first item of the key of a create call watched past its deadline


class Retirement:
    """The retiring records of one stack, by id() (removal must not scan a list)."""

    def __init__(self, run: StackRun) -> None:
        self._run = run
        self._retiring: dict[int, ResourceState] = {}
        self.prune_pending = False  # records left the template while a call for them was in flight
        self._referenced: tuple[int, frozenset[str], frozenset[str]] | None = None

    def __bool__(self) -> bool:
        return bool(self._retiring)

    def __iter__(self) -> Iterator[ResourceState]:
        return iter(self._retiring.values())

    def __contains__(self, state: ResourceState) -> bool:
        return id(state) in self._retiring

    def retire(self, state: ResourceState) -> None:
        """`state` is on its way out (its status already says so)."""
        self._retiring[id(state)] = state

    def retire_pruned(self) -> None:
        """Retire the records whose resources left the template (when the policy prunes)."""
        run = self._run
        self.prune_pending = False
        if not (run.policy.prune or run.removing):
            return
        records = run.resources.records
        graph = run.resources.graph
        for name in [name for name in records if name not in graph]:
            if not run.removing and run.needs_approval("delete"):
                run.summary.await_approval(name, "delete")
                continue
            if name in run.flights or name in run.readiness:
                self.prune_pending = True
                continue  # retired once its call is back
            state = records.pop(name)
            state.status = RecordStatus.RETIRED
            run.writes.mark(state)
            self._retiring[id(state)] = state

    def forget(self, state: ResourceState, *, deleted: bool = False) -> None:
        """`state` is gone (or never made anything): its record is deleted."""
        self._retiring.pop(id(state), None)
        self._run.writes.forget(state)
        if deleted and state.successor is None:
            self._run.summary.count("deleted")

    def delete_due(self, now: float) -> None:
        """Delete every retiring record nothing holds back any more."""
        if self.prune_pending:
            self.retire_pruned()
        if not self._retiring:
            return
        referenced = self._referenced_physical_ids()
        flights = self._run.flights
        resources = self._run.resources
        for state in list(self._retiring.values()):
            key = (DELETE, id(state))
            if key in flights or resources.retrying(key):
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
        retiring_ids = frozenset(state.physical_id for state in self._retiring.values() if state.physical_id)
        changes = self._run.writes.changes
        cached = self._referenced
        if cached is not None and cached[0] == changes and cached[1] == retiring_ids:
            return cached[2]
        referenced: set[str] = set()
        for state in itertools.chain(self._run.resources.records.values(), self._retiring.values()):
            leaves = state.leaves
            if leaves is None or leaves[0] is not state.properties:
                leaves = state.leaves = (state.properties, frozenset(string_leaves(state.properties)))
            if not retiring_ids.isdisjoint(leaves[1]):
                referenced.update(leaf for leaf in leaves[1] & retiring_ids if leaf != state.physical_id)
        self._referenced = (changes, retiring_ids, frozenset(referenced))
        return self._referenced[2]

    def _may_delete(self, state: ResourceState, referenced: frozenset[str]) -> bool:
        if state.delete_first:
            return True
        if state.physical_id is not None and state.physical_id in referenced:
            return False
        run = self._run
        resources = run.resources
        if state.successor is not None and state.name in resources.graph:
            return resources.settled_with_dependents(state.name)
        return run.policy.prune or run.removing

    def late_create_out(self, state: ResourceState) -> bool:
        """Whether a create call for `state` is still out past its deadline."""
        wanted = id(state)
        return any(isinstance(key, tuple) and key[:2] == (LATE_CREATE, wanted) for key in self._run.flights)

    def _delete(self, state: ResourceState, key: tuple[str, int], now: float) -> None:
        run = self._run
        retained = state.deletion_policy == RETAIN or run.spec.retain_all
        if retained and not run.is_nested_record(state):
            self._retain(state)
            return
        if state.physical_id is None:
            if self.late_create_out(state):
                return  # deleted, or forgotten, once its create is back
            unanswered = state.attempts > 0 and state.record_id is not None  # a create may have landed
            if unanswered and not run.providers.is_inline(state.type):
                self._find_left_behind(state, key, now)
            else:
                self.forget(state)
            return
        if state.type and state.physical_id == f"{run.name}/{state.name}" and run.is_nested_record(state):
            run.children.remove(state.physical_id, retain=retained)  # forgotten once the child holds nothing
            return
        provider = run.providers.provider_for(state.type)
        if provider is None:
            self.forget(state)
            return
        state.status = RecordStatus.DELETE_IN_PROGRESS
        run.writes.mark(state)
        type_name, physical_id = state.type, state.physical_id
        refused = f"{state.name} ({physical_id})"  # where a refusal of this delete is reported
        summary = run.summary
        settings = run.context.settings

        def done(outcome: CallOutcome, at: float) -> None:
            if isinstance(outcome, Deleted):
                summary.failure_over(refused)  # an earlier refusal is over
                if outcome.snapshot is not None:
                    summary.keep(refused, f"snapshot {outcome.snapshot} made before it was deleted")
                self.forget(state, deleted=True)
            elif isinstance(outcome, RetryLater):
                state.attempts += 1
                state.last_error = outcome.message
                delay = settings.backoff.delay(state.attempts, outcome.after, run.context.random)
                run.resources.retry_after(key, at + delay)
            elif isinstance(outcome, Failed):
                # Reported, and tried again only after a back-off: a refused delete is not sent
                # again on every pass.
                state.attempts += 1
                state.last_error = run.without_secrets(outcome.message)
                summary.fail(refused, f"delete failed: {state.last_error}")
                delay = settings.backoff.delay(state.attempts, None, run.context.random)
                run.resources.retry_after(key, at + delay)

        if state.deletion_policy == SNAPSHOT:
            marker = Marker(run.name, state.name, str(state.record_id))
            spec = CallSpec("snapshot_delete", run.policy.cloud, type_name, (physical_id,), marker=marker)
        else:
            spec = CallSpec(DELETE, run.policy.cloud, type_name, (physical_id,))
        if run.providers.is_inline(type_name):
            done(cast("CallOutcome", spec.run_with(provider)), now)
        else:
            abandon = partial(done, RetryLater("delete timed out"))
            run.flights.dispatch(key, spec, provider, done, abandon, now=now)

    def _retain(self, state: ResourceState) -> None:
        """Heat's `Retain`: the resource stays in the cloud and leaves management; the note says so."""
        where = f"{state.name} ({state.physical_id})" if state.physical_id else state.name
        summary = self._run.summary
        summary.keep(where, "retained: left in the cloud, no longer managed")
        summary.count("retained")
        self.forget(state)

    def _find_left_behind(self, state: ResourceState, key: tuple[str, int], now: float) -> None:
        """Search the marker of a retired record whose create was never answered: delete what it finds."""
        assert state.record_id is not None
        run = self._run
        provider = run.providers.provider_for(state.type)
        if provider is None:
            self.forget(state)
            return
        marker = Marker(run.name, state.name, str(state.record_id))

        def done(outcome: CallOutcome, at: float) -> None:
            if isinstance(outcome, Applied):
                state.physical_id = outcome.live.physical_id  # deleted at the next pass
                run.writes.mark(state)
            elif isinstance(outcome, Deleted):
                self.forget(state)
            else:
                state.attempts += 1
                if isinstance(outcome, Failed):
                    reason = f"searching for what its create left failed: {outcome.message}"
                    run.summary.fail(f"{state.name} (record {state.record_id})", reason)
                delay = run.context.settings.backoff.delay(state.attempts, None, run.context.random)
                run.resources.retry_after(key, at + delay)

        spec = CallSpec("find", run.policy.cloud, state.type, marker=marker)
        abandon = partial(done, RetryLater("marker search timed out"))
        run.flights.dispatch(key, spec, provider, done, abandon, now=now)
