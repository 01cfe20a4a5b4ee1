"""What the engine says about a stack: status for its newest commit, counts, failures with reasons."""

from __future__ import annotations

from dataclasses import dataclass, field

from state.stacks import StackStatus

SETTLED_STATUSES = frozenset(
    {
        StackStatus.CONVERGED,
        StackStatus.SUSPENDED,
        StackStatus.FAILED,
        StackStatus.INVALID,
        StackStatus.ABANDONED,
    }
)


@dataclass(frozen=True)
class Failure:
    """One thing needing a person: the resource and the reason (the cloud's message; no secrets)."""

    resource: str
    reason: str

    def __str__(self) -> str:
        return f"{self.resource}: {self.reason}"


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

    @property
    def settled(self) -> bool:
        return self.status in SETTLED_STATUSES
