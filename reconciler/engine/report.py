"""What the engine says about a stack: status for its newest commit, counts, failures with reasons."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from state.stacks import StackStatus

# PENDING_APPROVAL rests too: nothing moves until a person approves
SETTLED_STATUSES = frozenset(
    {
        StackStatus.CONVERGED,
        StackStatus.SUSPENDED,
        StackStatus.FAILED,
        StackStatus.INVALID,
        StackStatus.ABANDONED,
        StackStatus.PENDING_APPROVAL,
    }
)


@dataclass(frozen=True)
class Failure:
    """One thing needing a person: the resource and the reason (the cloud's message; no secrets)."""

    resource: str
    reason: str
    next_try: float | None = None  # when a resource FAILED for a permanent cause is tried again

    def __str__(self) -> str:
        if self.next_try is None:
            return f"{self.resource}: {self.reason}"
        return f"{self.resource}: {self.reason}{NEXT_TRY}{next_try_text(self.next_try)}"


NEXT_TRY = "; next try at "
NEXT_TRY_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def next_try_text(when: float) -> str:
    """A retry's time as people and notes read it: UTC, to the second."""
    return datetime.fromtimestamp(when, UTC).strftime(NEXT_TRY_FORMAT)


def parse_failure(text: str) -> Failure:
    """A failure back from its text (`str(failure)`, as a stack's stored reasons hold it)."""
    resource, separator, rest = text.partition(": ")
    if not separator:
        return Failure("stack", text)
    reason, marked, when = rest.rpartition(NEXT_TRY)
    if marked:
        try:
            moment = datetime.strptime(when, NEXT_TRY_FORMAT).replace(tzinfo=UTC).timestamp()
        except ValueError:
            return Failure(resource, rest)
        return Failure(resource, reason, moment)
    return Failure(resource, rest)


@dataclass(frozen=True)
class ActionCounts:
    """What convergence did at the current generation."""

    created: int = 0
    updated: int = 0
    replaced: int = 0
    deleted: int = 0
    retained: int = 0  # left in the cloud by their `Retain` deletion policy
    unchanged: int = 0


@dataclass(frozen=True)
class StackReport:
    """A stack's status at its newest commit; `superseded` lists commits a newer one took over from."""

    stack: str
    status: StackStatus
    commit: str | None
    generation: int | None
    counts: ActionCounts = ActionCounts()
    failures: tuple[Failure, ...] = ()
    superseded: tuple[str, ...] = field(default=())
    resources: int = 0
    kept: tuple[str, ...] = ()  # what deletion policies kept: retained resources, snapshots made
    drift_repairs: int = 0  # drifted resources repaired since this worker began running the stack
    recent_repairs: tuple[str, ...] = ()  # the newest of them, newest last
    scalings: tuple[str, ...] = ()  # what scaling policies did to its groups at this commit, newest last

    @property
    def settled(self) -> bool:
        return self.status in SETTLED_STATUSES
