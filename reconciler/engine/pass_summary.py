"""What a stack's passes add up to: its status, failures, counts and outputs, and when to write them.

Every pass ends by summarising (`summarize`): the status follows from what is still moving and
what failed; outputs are resolved once the stack settles and something they may read changed.
What is due to be written is taken once per pass (`take`) into the pass's result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from reconciler.engine.drift_tally import DriftTally
from reconciler.engine.pass_result import StatusWrite
from reconciler.engine.report import ActionCounts, Failure
from reconciler.engine.stack_status import AT_REST, StackStatus, summarize_status

OWN_ACTIONS = ("replace", "delete")  # else what waits is a nested stack's, already explained


class PassSummary:
    """A stack's status, failures and counts at its current generation, and its outputs."""

    def __init__(self) -> None:
        self.status = StackStatus.PENDING
        self._failures: dict[str, str] = {}  # resource (or what a refused delete was) -> reason
        self._escalations: dict[str, str] = {}  # resource -> why no right action exists: needs a person
        self.awaiting: dict[str, str] = {}  # resource -> the action (replace, delete) awaiting approval
        self._drifted: set[str] = set()
        self.tally = DriftTally()  # the engine shares its root's among a tree of nested stacks
        self._replacements: Counter[str] = Counter()  # resource -> replacements of a failing resource
        self._counts: Counter[str] = Counter()
        self._kept: dict[str, str] = {}  # resource (physical id) -> what its deletion policy kept
        self.outputs: dict[str, Any] = {}
        self.outputs_stale = True  # a value outputs may read changed since they were computed
        self.superseded: dict[str, int] = {}  # commit a newer one took over from -> its generation
        self._reasons: tuple[str, ...] = ()
        # resource FAILED -> when it is tried again (`failure_retries`); a nested one -> its child's
        self.next_tries: dict[str, float] = {}
        self.nested_next_tries: dict[str, float] = {}
        self._outputs_due = False  # computed, not written yet
        self._status_due = False

    def new_generation(self, commit: str | None, generation: int, new_commit: str) -> None:
        """A new generation takes over: a commit still in progress ends SUPERSEDED."""
        if commit is not None and commit != new_commit and not self.settled():
            self.superseded[commit] = generation
        self._failures = {}
        self._escalations = {}
        self.awaiting = {}
        self._replacements = Counter()
        self._counts = Counter()
        self._kept = {}
        self.next_tries = {}
        self.nested_next_tries = {}
        self.outputs_stale = True
        self.status = StackStatus.PROGRESSING
        self._status_due = True

    def settled(self) -> bool:
        return self.status in AT_REST or self.status is StackStatus.FAILED

    def recommitted(self) -> None:
        """A newer commit with the same definition: its status is written again (it may have been
        INVALID in between); a settled stack did nothing at that commit, so its counts start over."""
        if self.settled():
            self._counts = Counter()
            self._kept = {}
        self._status_due = True

    def count(self, action: str) -> None:
        """One more resource `created`, `updated`, `replaced` or `deleted` at this generation."""
        self._counts[action] += 1

    def keep(self, where: str, what: str) -> None:
        """A deletion policy kept `what` of the resource `where` (a snapshot, the resource itself)."""
        self._kept[where] = what

    def kept(self) -> tuple[str, ...]:
        return tuple(f"{resource}: {what}" for resource, what in sorted(self._kept.items()))

    def fail(self, key: str, reason: str) -> None:
        self._failures[key] = reason

    def failure_over(self, key: str) -> None:
        self._failures.pop(key, None)
        self.nested_next_tries.pop(key, None)

    def failed(self, key: str) -> bool:
        return key in self._failures

    def failed_resources(self, graph: Mapping[str, frozenset[str]]) -> list[str]:
        """The resources of `graph` that failed (refused deletes and searches are not resources)."""
        return [name for name in self._failures if name in graph]

    def escalated(self, name: str) -> bool:
        return name in self._escalations

    def escalation_over(self, name: str) -> None:
        """A person asked to retry `name`: its escalation, and its replacements so far, are over."""
        self._escalations.pop(name, None)
        self._replacements.pop(name, None)

    def escalate(self, name: str, reason: str, *, unless_escalated: bool = False) -> None:
        """`name` needs a person: no right action exists (kept as first given with `unless_escalated`)."""
        if not (unless_escalated and name in self._escalations):
            self._escalations[name] = reason

    def await_approval(self, name: str, action: str) -> None:
        """`name`'s `action` waits until the commit is approved."""
        if self.awaiting.get(name) != action:
            self.awaiting[name] = action
            self._status_due = True

    def drifting(self, name: str) -> None:
        self._drifted.add(name)

    def drift_repaired(self, name: str, label: str) -> None:
        """`name` settled; if it had drifted, one more repair (`label`: the name with its stack)."""
        if name in self._drifted:
            self._drifted.discard(name)
            self.tally.repaired(label)

    def replaced_failing(self, name: str) -> int:
        """One more replacement of failing `name`; how many so far at this generation."""
        self._replacements[name] += 1
        return self._replacements[name]

    def status_changed(self) -> None:
        """Something a person reads changed outside a summary (an escalation): write the status."""
        self._status_due = True

    def summarize(
        self,
        graph: Mapping[str, frozenset[str]],
        *,
        complete: bool,
        waiting: bool,
        suspended: bool = False,
        resolve_outputs: Callable[[], dict[str, Any]],
    ) -> None:
        status = summarize_status(
            complete=complete,
            waiting=waiting,
            failed=bool(self._failures or self._escalations),
            drifted=bool(self._drifted),
            awaiting_approval=bool(self.awaiting),
            suspended=suspended,
        )
        reasons = tuple(str(failure) for failure in self.failure_list(graph)) + self._awaiting_reasons()
        # A FAILED stack's outputs follow its other resources too (a repair, a replacement): an
        # output of the failed resource itself reads as None, as Heat shows it.
        if self.outputs_stale and (status in AT_REST or status is StackStatus.FAILED):
            self.outputs_stale = False
            outputs = resolve_outputs()
            if outputs != self.outputs or not self.outputs:
                self.outputs = outputs
                self._outputs_due = True
        if status is not self.status or reasons != self._reasons:
            self.status = status
            self._reasons = reasons
            self._status_due = True

    def awaiting_failures(self) -> list[Failure]:
        """The actions waiting for approval, as a person reads them in a note."""
        return [
            Failure(
                name, f"{action} waits for approval (reconciler approve)" if action in OWN_ACTIONS else action
            )
            for name, action in sorted(self.awaiting.items())
        ]

    def _awaiting_reasons(self) -> tuple[str, ...]:
        return tuple(str(failure) for failure in self.awaiting_failures())

    def failure_list(self, graph: Mapping[str, frozenset[str]]) -> list[Failure]:
        """What needs a person; failures that only follow from an escalated resource are left out."""
        escalations = self._escalations
        explained = {
            name
            for name in self._failures
            if name not in escalations and graph.get(name, frozenset()) & escalations.keys()
        }
        merged = {**{k: v for k, v in self._failures.items() if k not in explained}, **escalations}
        next_tries = {**self.nested_next_tries, **self.next_tries}
        return [Failure(name, reason, next_tries.get(name)) for name, reason in sorted(merged.items())]

    def action_counts(self, unchanged: int) -> ActionCounts:
        counts = self._counts
        return ActionCounts(
            created=counts["created"],
            updated=counts["updated"],
            replaced=counts["replaced"],
            deleted=counts["deleted"],
            retained=counts["retained"],
            unchanged=unchanged,
        )

    def take(self, generation: int) -> tuple[StatusWrite | None, Mapping[str, Any] | None]:
        """The status and outputs due to be written (outputs once the stack is past PROGRESSING)."""
        outputs = None
        if self._outputs_due and self.status is not StackStatus.PROGRESSING:
            outputs = self.outputs
            self._outputs_due = False
        status = None
        if self._status_due:
            status = StatusWrite(self.status, self._reasons, generation)
            self._status_due = False
        return status, outputs
