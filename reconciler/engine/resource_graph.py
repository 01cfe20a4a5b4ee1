"""Which resources of a stack are settled, and which are ready to be decided: the ready set.

There are NO per-edge counters: a resource is ready when every resource it requires is *settled*
(converged at the current generation), and settling one resource considers only its dependents,
so a pass costs what changed, not the size of the stack.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from graphlib import CycleError, TopologicalSorter

from reconciler.engine.resource_state import ResourceState


class ResourceGraph:
    """The stack's graph and records, the settled set and the queue of resources ready to decide."""

    def __init__(self) -> None:
        self.graph: Mapping[str, frozenset[str]] = {}
        self._dependents: dict[str, list[str]] = {}
        self.records: dict[str, ResourceState] = {}
        self._settled: set[str] = set()
        self._previously_settled: set[str] = set()
        self._values_changed: set[str] = set()  # settled with new values this generation
        self._acted: set[str] = set()  # resources a call was made for this generation
        self._retry_at: dict[object, float] = {}  # a resource (or a delete's key) -> when to try again
        self._queued: set[str] = set()
        self._ready: deque[str] = deque()
        self._levels: dict[str, int] | None = None

    def reset(self, graph: Mapping[str, frozenset[str]]) -> None:
        """A new generation: its graph, nothing settled yet, retries of resources that left it dropped."""
        self._previously_settled = self._settled
        self._values_changed = set()
        self.graph = graph
        self._dependents = {name: [] for name in graph}
        for name, required in graph.items():
            for dependency in required:
                self._dependents.setdefault(dependency, []).append(name)
        self._settled = set()
        self._acted = set()
        self._queued = set()
        self._ready = deque()
        self._levels = None
        for key in [key for key in self._retry_at if isinstance(key, str) and key not in graph]:
            del self._retry_at[key]

    def consider(self, name: str) -> None:
        """Queue `name` for a decision if everything it requires is settled."""
        if name in self._queued or name in self._settled or name not in self.graph:
            return
        if all(required in self._settled for required in self.graph[name]):
            self._queued.add(name)
            self._ready.append(name)

    def settle(self, name: str, *, values_changed: bool) -> None:
        """`name` converged; its dependents are considered (and decided again if its values changed)."""
        self._settled.add(name)
        if values_changed:
            self._values_changed.add(name)
        self._retry_at.pop(name, None)
        for dependent in self._dependents.get(name, ()):
            if values_changed and dependent in self._settled:
                self._settled.discard(dependent)
            self.consider(dependent)

    def level_of(self, key: object) -> int:
        """How long the longest chain of resources requiring `key` is, `key` counted (1: nothing
        requires it); 0 for what is not a resource of the graph (a delete's key)."""
        if self._levels is None:
            self._levels = self._chain_levels()
        return self._levels.get(key, 0) if isinstance(key, str) else 0

    def _chain_levels(self) -> dict[str, int]:
        """Every resource's level, dependents before what they require (made once a generation)."""
        levels: dict[str, int] = {}
        dependents = self._dependents
        try:
            order = list(TopologicalSorter(self.graph).static_order())
        except CycleError:  # refused when the template is checked; no priority rather than a crash
            return levels
        for name in reversed(order):
            levels[name] = 1 + max(
                (levels.get(dependent, 0) for dependent in dependents.get(name, ())), default=0
            )
        return levels

    def dependents_of(self, name: str) -> tuple[str, ...]:
        """The resources that require `name` directly."""
        return tuple(self._dependents.get(name, ()))

    def unsettle(self, name: str) -> None:
        """`name` is to be decided again (queued once what it requires is settled)."""
        self._settled.discard(name)
        self.consider(name)

    def hold(self, name: str) -> None:
        """`name` is no longer settled and not decided again: what requires it waits for a person."""
        self._settled.discard(name)

    def is_settled(self, name: str) -> bool:
        return name in self._settled

    def settled_with_dependents(self, name: str) -> bool:
        """`name` and everything requiring it are settled: what it replaced may go."""
        settled = self._settled
        return name in settled and all(dependent in settled for dependent in self._dependents.get(name, ()))

    def acting_on(self, name: str) -> None:
        """A call is made for `name` at this generation (it is not counted as unchanged)."""
        self._acted.add(name)

    def retry_after(self, key: object, when: float) -> None:
        """Try `key` (a resource, or a delete's key) again at `when`."""
        self._retry_at[key] = when

    def retry_now(self, now: float, keys: set[str] | None = None) -> None:
        """Bring the waiting retries (of `keys`, or every one, deletes too) forward to `now`."""
        for key, when in self._retry_at.items():
            if when > now and (keys is None or key in keys):
                self._retry_at[key] = now

    def cancel_retry(self, key: object) -> None:
        self._retry_at.pop(key, None)

    def retrying(self, key: object) -> bool:
        return key in self._retry_at

    def any_retrying(self) -> bool:
        return bool(self._retry_at)

    def unchanged(self) -> int:
        """Resources settled at this generation without a call."""
        return len(self._settled - self._acted)

    def has_ready(self) -> bool:
        return bool(self._ready)

    def next_ready(self) -> str:
        name = self._ready.popleft()
        self._queued.discard(name)
        return name

    def settled_before_and_unchanged(self, name: str) -> bool:
        """Settled at the last generation, and nothing it requires settled with new values since."""
        return name in self._previously_settled and not self._values_changed & self.graph[name]

    def complete(self) -> bool:
        return len(self._settled) == len(self.graph)

    def due_retries(self, now: float) -> list[object]:
        """The retries due by `now`, taken off the schedule."""
        due = [key for key, when in self._retry_at.items() if when <= now]
        for key in due:
            del self._retry_at[key]
        return due

    def next_retry(self) -> float | None:
        return min(self._retry_at.values()) if self._retry_at else None
