"""Which resources of a stack are settled, and which are ready to be decided: the ready set.

There are NO per-edge counters: a resource is ready when every resource it requires is *settled*
(converged at the current generation), and settling one resource considers only its dependents,
so a pass costs what changed, not the size of the stack.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from reconciler.engine.resource_state import ResourceState


class ResourceGraph:
    """The stack's graph and records, the settled set and the queue of resources ready to decide."""

    def __init__(self) -> None:
        self.graph: Mapping[str, frozenset[str]] = {}
        self.dependents: dict[str, list[str]] = {}
        self.records: dict[str, ResourceState] = {}
        self.settled: set[str] = set()
        self.previously_settled: set[str] = set()
        self.values_changed: set[str] = set()  # settled with new values this generation
        self.acted: set[str] = set()  # resources a call was made for this generation
        self.retry_at: dict[object, float] = {}  # a resource (or a delete's key) -> when to try again
        self._queued: set[str] = set()
        self._ready: deque[str] = deque()

    def reset(self, graph: Mapping[str, frozenset[str]]) -> None:
        """A new generation: its graph, nothing settled yet, every retry of a resource gone dropped."""
        self.previously_settled = self.settled
        self.values_changed = set()
        self.graph = graph
        self.dependents = {name: [] for name in graph}
        for name, required in graph.items():
            for dependency in required:
                self.dependents.setdefault(dependency, []).append(name)
        self.settled = set()
        self.acted = set()
        self._queued = set()
        self._ready = deque()
        for key in [key for key in self.retry_at if isinstance(key, str) and key not in graph]:
            del self.retry_at[key]

    def consider(self, name: str) -> None:
        """Queue `name` for a decision if everything it requires is settled."""
        if name in self._queued or name in self.settled or name not in self.graph:
            return
        if all(required in self.settled for required in self.graph[name]):
            self._queued.add(name)
            self._ready.append(name)

    def settle(self, name: str, *, values_changed: bool) -> None:
        """`name` converged; its dependents are considered (and decided again if its values changed)."""
        self.settled.add(name)
        if values_changed:
            self.values_changed.add(name)
        self.retry_at.pop(name, None)
        for dependent in self.dependents.get(name, ()):
            if values_changed and dependent in self.settled:
                self.settled.discard(dependent)
            self.consider(dependent)

    def unsettle(self, name: str) -> None:
        self.settled.discard(name)
        self.consider(name)

    def has_ready(self) -> bool:
        return bool(self._ready)

    def next_ready(self) -> str:
        name = self._ready.popleft()
        self._queued.discard(name)
        return name

    def complete(self) -> bool:
        return len(self.settled) == len(self.graph)

    def due_retries(self, now: float) -> list[object]:
        """The retries due by `now`, taken off the schedule."""
        due = [key for key, when in self.retry_at.items() if when <= now]
        for key in due:
            del self.retry_at[key]
        return due

    def next_retry(self) -> float | None:
        return min(self.retry_at.values()) if self.retry_at else None
