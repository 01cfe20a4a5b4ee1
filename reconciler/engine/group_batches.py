"""A group's members worked on batch by batch, as Heat's rolling updates and `batch_create` do.

The coordinator of a group's nested stack holds one batch at a time. A batch is decided from where
the group stands (`rolling_batches.next_batch`): the members there now, and how many of those that
will stay already have the new definition. It names the members it creates and updates; only those
are decided (a member already up to date is settled as it is); members beyond its capacity are
pruned. A batch above the group's size works on the group's definition with that many members, so
the temporary members are made with the new definition and pruned by a later, smaller batch.

A batch is over when its members are settled with the new definition and nothing of it is out;
then the group waits `pause_time` on the engine's clock (between batches, not after the last) and
decides the next. A member that fails stops the update there, as Heat's update fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reconciler.engine.batching import BatchPolicy
from reconciler.engine.record_rows import plain_json
from reconciler.engine.resource_state import RecordStatus
from reconciler.engine.rolling_batches import (
    BatchMembers,
    batch_members,
    needs_update,
    next_batch,
    up_to_date_kept,
)
from reconciler.templates.errors import Unresolved

if TYPE_CHECKING:
    from reconciler.engine.desired import DesiredStack
    from reconciler.engine.stack_run import StackRun


class GroupBatches:
    """The batch a group's coordinator works on now, and the members it holds back meanwhile."""

    def __init__(self, run: StackRun) -> None:
        self._run = run
        self.policy: BatchPolicy | None = None
        self._target: DesiredStack | None = None  # the group as desired (its size is the target)
        self._batch: BatchMembers | None = None
        self._resume_at: float | None = None
        self._held: set[str] = set()
        self._wide: DesiredStack | None = None  # the group with room for every member there now

    def start(self, policy: BatchPolicy | None, target: DesiredStack | None) -> DesiredStack | None:
        """A new desire: batches decided afresh from where the group stands. Returns the definition
        the first batch works on (the group with its temporary members, or `target` itself)."""
        self.policy = policy if target is not None else None
        self._target = target
        self._wide = None
        self._batch = None
        self._resume_at = None
        self._held.clear()
        if self.policy is None or target is None:
            return target
        self._wide = _resized(target, len(target.resources) + len(self._run.resources.records))
        return self._next_batch()

    def holding(self) -> bool:
        """Whether an update is under way batch by batch (the group is not converged before its end)."""
        return self.policy is not None and self._batch is not None and not self._stopped()

    def can_advance(self) -> bool:
        """Whether the next pass would move on: the batch under way is over and no pause is set yet."""
        if self.policy is None or self._resume_at is not None or self._stopped():
            return False
        return self._batch is None or self._batch_over()

    def resume_at(self) -> float | None:
        """When a pause between batches ends (None: no pause under way)."""
        return self._resume_at

    def allows(self, name: str) -> bool:
        """Whether member `name` may be decided now; if not it is held for a later batch."""
        batch = self._batch
        if self.policy is None or batch is None or name in batch.create or name in batch.update:
            return True
        if self._up_to_date(name):
            return True
        self._held.add(name)
        return False

    def advance(self, now: float) -> None:
        """Start the next batch once the one under way is over and its pause has passed."""
        if self.policy is None or self._target is None or self._stopped():
            return
        if self._batch is not None and not self._batch_over():
            return
        if self._batch is not None and self._resume_at is None:
            if not self._more_due():
                self._batch = self.policy = None  # no pause after the last batch
                return
            if self.policy.pause_time > 0:
                self._resume_at = now + self.policy.pause_time
        if self._resume_at is not None and now < self._resume_at:
            return
        self._resume_at = None
        working = self._next_batch()
        if working is not self._run.definition:
            self._run.work_on(working)
        self._release()

    def _more_due(self) -> bool:
        target = self._target
        assert target is not None
        size = len(target.resources)
        members = self._members()
        return needs_update(size, len(members), up_to_date_kept(list(target.resources), members, size))

    def _next_batch(self) -> DesiredStack:
        """Decide the next batch; the definition it works on (the target again once none is due)."""
        target = self._target
        policy = self.policy
        assert target is not None and policy is not None
        size = len(target.resources)
        members = self._members()
        up_to_date = up_to_date_kept(list(target.resources), members, size)
        if not needs_update(size, len(members), up_to_date):
            self.policy = None  # every member has the new definition: the group is as desired
            self._batch = None
            return target
        batch = next_batch(size, len(members), up_to_date, policy.max_batch_size, policy.min_in_service)
        working = target if batch.capacity <= size else _resized(target, batch.capacity)
        self._batch = batch_members(list(working.resources), members, size, batch)
        return working

    def _release(self) -> None:
        held, self._held = self._held, set()
        for name in held:
            self._run.resources.consider(name)

    def _batch_over(self) -> bool:
        batch = self._batch
        assert batch is not None
        run = self._run
        if any(name in run.resources.records for name in batch.delete):
            return False
        if any(state.name in batch.delete for state in run.retirement):
            return False
        renewed = (*batch.create, *batch.update)
        return all(run.resources.is_settled(name) and self._up_to_date(name) for name in renewed)

    def _stopped(self) -> bool:
        """A member of the batch failed: the update stops there (the group reports the failure)."""
        batch = self._batch
        if batch is None:
            return False
        summary = self._run.summary
        return any(summary.failed(name) for name in (*batch.create, *batch.update))

    def _members(self) -> dict[str, bool]:
        """The members there now (retiring ones aside): name -> whether it has the new definition."""
        return {name: self._up_to_date(name) for name in self._run.resources.records}

    def _up_to_date(self, name: str) -> bool:
        run = self._run
        state = run.resources.records.get(name)
        target = self._target
        if state is None or target is None or state.status is RecordStatus.FAILED:
            return False
        definition = target if name in target.resources else self._wide
        if definition is None or name not in definition.resources:
            return False
        try:
            desired: Any = plain_json(definition.resolve_properties(name, run.values))
        except Unresolved:
            return False
        return bool(state.type == definition.resources[name].type and state.properties == desired)


def _resized(target: DesiredStack, count: int) -> DesiredStack:
    resize = getattr(target, "with_member_count", None)
    resized = resize(count) if resize is not None else None
    return target if resized is None else resized
