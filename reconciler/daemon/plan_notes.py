"""Plans for pull-request heads: a stack's definition at the head diffed against what is recorded.

The plan layer decides; this module only feeds it the recorded resources and renders its answer as
a plan note line (names per action, the property names that force each replacement).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reconciler.plan import Action, RecordedResource, StackPlan, UpdateRules, plan_stack
from reconciler.source.note_lines import PLAN, NoteLine, PlannedActions, Replacement
from reconciler.source.revisions import StackRevision
from state import RecordedResource as StoredRecord

FAILED_RECORD_STATUSES = frozenset({"FAILED", "ERROR"})
PLANNED = "PLANNED"


def recorded_for_plan(records: Iterable[StoredRecord]) -> dict[str, RecordedResource]:
    """The store's current records of one stack as the plan layer sees them (replaced ones skipped)."""
    return {
        record.logical_name: RecordedResource(
            name=record.logical_name,
            type=record.type,
            physical_id=record.physical_id,
            properties=record.properties,
            attributes=record.attributes,
            failed=record.status.upper() in FAILED_RECORD_STATUSES,
        )
        for record in records
        if record.replaced_by is None
    }


def planned_actions(plan: StackPlan) -> PlannedActions:
    """A stack plan reduced to what a note shows."""

    def named(action: Action) -> tuple[str, ...]:
        return tuple(item.name for item in plan.resources if item.action is action)

    return PlannedActions(
        create=named(Action.CREATE),
        update=named(Action.UPDATE),
        replace=tuple(
            Replacement(item.name, tuple(sorted(item.replace_reasons)))
            for item in plan.resources
            if item.action is Action.REPLACE
        ),
        delete=named(Action.DELETE),
        unchanged=len(named(Action.UNCHANGED)),
        deferred=named(Action.DEFERRED),
    )


def plan_line(
    revision: StackRevision,
    recorded: Mapping[str, RecordedResource],
    rules: UpdateRules,
    *,
    at: float,
    writer: str,
) -> NoteLine:
    """The plan note line of `revision`'s stack against its recorded resources."""
    plan = plan_stack(revision.definition, recorded, rules, prune=revision.spec.prune)
    return NoteLine(
        kind=PLAN,
        stack=revision.name,
        commit=revision.commit,
        status=PLANNED,
        at=at,
        writer=writer,
        plan=planned_actions(plan),
    )
