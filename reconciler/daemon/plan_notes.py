"""Plans for pull-request heads: a stack's definition at the head diffed against what is recorded.

The plan layer decides; this module only feeds it the recorded resources and renders its answer as
a plan note line (an entry per resource that changes, a group's members as their own, with the
property names that force each replacement and each changed property's old and new value, secrets
masked).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, Protocol

from reconciler.daemon.memo_records import records_for_plan
from reconciler.daemon.recorded_rows import recorded_for_plan
from reconciler.engine.preflight import preflight_problems
from reconciler.engine.provider_set import ProviderSet
from reconciler.plan import NestedRecords, RecordedResource, UpdateRules, plan_stack
from reconciler.source.commit_files import CommitFileSource
from reconciler.source.note_lines import PLAN, REPOSITORY_SCOPE, NoteLine
from reconciler.source.plan_entries import planned_actions
from reconciler.source.revisions import (
    CommitConfig,
    InvalidCommit,
    InvalidStack,
    StackRevision,
    WaitingForOutputs,
    load_revision,
    note_problems,
    read_commit_config,
)
from reconciler.source.touched_stacks import changed_paths, touched_stacks
from reconciler.templates import DocumentCache, FunctionError, StackSpec
from reconciler.templates.documents import flat_path
from state import ComparedRecord, PlanMemos, StackState, StackStatus

PLANNED = "PLANNED"


class RecordedState(Protocol):
    """What planning reads of the state store."""

    def read_stack(self, stack: str) -> StackState | None: ...

    def read_compared_records(self, stack: str) -> list[ComparedRecord]: ...

    def read_compared_records_under(self, stack: str) -> dict[str, list[ComparedRecord]]: ...

    def newest_digests_under(self, stack: str) -> dict[str, str]: ...

    def plan_memos(self) -> PlanMemos: ...

    def read_compared_records_named(self, stack: str, names: Collection[str]) -> list[ComparedRecord]: ...


class StoredRecords:
    """The plan layer's `NestedRecords` over the store: the records of nested stacks, read once
    per root stack (one read for the whole tree, not one per nested stack)."""

    def __init__(self, store: RecordedState) -> None:
        self._store = store
        self._trees: dict[str, dict[str, list[ComparedRecord]]] = {}
        self._digests: dict[str, dict[str, str]] = {}

    def records(self, stack: str) -> Mapping[str, RecordedResource]:
        root = stack.split("/", 1)[0]
        if root == stack:
            return recorded_for_plan(self._store.read_compared_records(stack))
        if root not in self._trees:
            self._trees[root] = self._store.read_compared_records_under(root)
        return recorded_for_plan(self._trees[root].get(stack, []))

    def digest(self, stack: str) -> str | None:
        root = stack.split("/", 1)[0]
        if root == stack:
            return None
        if root not in self._digests:
            self._digests[root] = self._store.newest_digests_under(root)
        return self._digests[root].get(stack)


def plan_line(
    revision: StackRevision,
    recorded: Mapping[str, RecordedResource],
    rules: UpdateRules,
    *,
    at: float,
    writer: str,
    nested: NestedRecords | None = None,
    settled: frozenset[str] | None = None,
) -> NoteLine:
    """The plan note line of `revision`'s stack against its recorded resources (and, with `nested`,
    its nested stacks' records; `settled`: the resources known settled, see `plan_stack`)."""
    definition = revision.definition
    try:
        plan = plan_stack(
            definition,
            recorded,
            rules,
            prune=revision.spec.prune,
            stack=revision.name,
            nested=nested,
            settled=settled,
        )
    except FunctionError as error:  # a function failing on the values recorded now: said, not raised
        where = flat_path(error.where) if error.where else ()
        message = definition.without_secrets(str(error))
        if len(where) > 1 and where[0] == "resources":
            message = f"resource {where[1]}: {message}"
        problem = definition.context.model(definition.template_path).document.problem(where, message)
        return NoteLine(
            kind=PLAN,
            stack=revision.name,
            commit=revision.commit,
            status=StackStatus.INVALID,
            at=at,
            writer=writer,
            problems=note_problems([problem]),
        )
    return NoteLine(
        kind=PLAN,
        stack=revision.name,
        commit=revision.commit,
        status=PLANNED,
        at=at,
        writer=writer,
        plan=planned_actions(plan, revision.definition),
    )


def plan_for_stack(
    files: CommitFileSource,
    spec: StackSpec,
    store: RecordedState,
    rules: UpdateRules,
    *,
    at: float,
    writer: str,
    documents: DocumentCache | None = None,
) -> NoteLine:
    """The plan note line of one stack at the commit of `files`, against what the store recorded.

    `from_stack` parameters take the upstream stacks' current outputs; a stack whose upstream has
    none yet cannot be planned and says so (PENDING); a broken stack is INVALID with its problems.
    """

    def current_outputs(stack: str) -> Mapping[str, Any] | None:
        state = store.read_stack(stack)
        return state.outputs if state is not None and state.outputs else None

    outcome = load_revision(files, spec, current_outputs, documents)
    if isinstance(outcome, InvalidStack):
        return NoteLine(
            kind=PLAN,
            stack=spec.name,
            commit=files.sha,
            status=StackStatus.INVALID,
            at=at,
            writer=writer,
            problems=outcome.problems,
        )
    if isinstance(outcome, WaitingForOutputs):
        reason = f"cannot plan before {', '.join(sorted(outcome.upstream))} has outputs"
        return NoteLine(
            kind=PLAN,
            stack=spec.name,
            commit=files.sha,
            status=StackStatus.PENDING,
            at=at,
            writer=writer,
            failures=(reason,),
        )
    refusals = (
        preflight_problems(outcome.definition, rules, spec.cloud) if isinstance(rules, ProviderSet) else []
    )
    if refusals:
        return NoteLine(
            kind=PLAN,
            stack=spec.name,
            commit=files.sha,
            status=StackStatus.INVALID,
            at=at,
            writer=writer,
            problems=note_problems(refusals),
        )
    recorded, settled = records_for_plan(store, spec.name, outcome.definition)
    return plan_line(
        outcome, recorded, rules, at=at, writer=writer, nested=StoredRecords(store), settled=settled
    )


def plan_pull_request(
    files: CommitFileSource,
    base: CommitConfig,
    input_files: Mapping[str, Collection[str]],
    store: RecordedState,
    rules_for: Callable[[str], UpdateRules],
    *,
    at: float,
    writer: str,
    documents: DocumentCache | None = None,
) -> list[NoteLine]:
    """Plan lines for a pull-request head: each stack it changes against the tracked commit `base`.

    A head whose `reconciler.yaml` is broken gets one INVALID line for the whole commit.
    """
    read = read_commit_config(files)
    if isinstance(read, InvalidCommit):
        return [
            NoteLine(
                kind=PLAN,
                stack=REPOSITORY_SCOPE,
                commit=files.sha,
                status=StackStatus.INVALID,
                at=at,
                writer=writer,
                problems=read.problems,
            )
        ]
    paths = changed_paths(files.commit.repo, base.commit, files.sha)
    touched = touched_stacks(paths, base.config.stacks, read.config.stacks, input_files)
    return [
        plan_for_stack(files, spec, store, rules_for(spec.cloud), at=at, writer=writer, documents=documents)
        for spec in (read.config.stacks[name] for name in sorted(touched.changed))
    ]
