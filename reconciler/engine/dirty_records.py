"""The records of one stack to write at the end of the pass: changed, deleted, or due soon."""

from __future__ import annotations

from collections import deque

from reconciler.engine.resource_state import ResourceState


class DirtyRecords:
    """Records changed since the last write, by id() (marking one twice writes it once)."""

    def __init__(self) -> None:
        self._dirty: dict[int, ResourceState] = {}
        self._later: dict[int, ResourceState] = {}  # written at the latest by their time in:
        self._later_due: deque[tuple[float, ResourceState]] = deque()
        self._deleted_ids: list[int] = []
        self.changes = 0  # records marked or forgotten so far: when to look for references again

    def mark(self, state: ResourceState) -> None:
        self._dirty[id(state)] = state
        self.changes += 1

    def mark_soon(self, state: ResourceState, due: float) -> None:
        """Write `state` with its next change, or at `due` at the latest.

        For a create back while the resource builds: the record would be written again when the
        resource is READY (seconds later for a server), so one write of the two is spared.
        """
        self.changes += 1
        if id(state) not in self._dirty and id(state) not in self._later:
            self._later[id(state)] = state
            self._later_due.append((due, state))

    def forget(self, state: ResourceState) -> None:
        """`state` is gone: not written again, and its record deleted if it has one."""
        self.changes += 1
        self._dirty.pop(id(state), None)
        self._later.pop(id(state), None)
        if state.record_id is not None:
            self._deleted_ids.append(state.record_id)

    def holds_later(self) -> bool:
        return bool(self._later)

    def next_due(self) -> float | None:
        return self._later_due[0][0] if self._later_due else None

    def take(self, now: float) -> tuple[list[ResourceState], list[int]]:
        """The records to upsert and delete since the last take.

        A record marked to be written soon goes now if its time came, or if it changed again since.
        """
        dirty, later, due = self._dirty, self._later, self._later_due
        while due and due[0][0] <= now:
            state = due.popleft()[1]
            if later.pop(id(state), None) is state:
                dirty[id(state)] = state
        if later:
            for key in dirty:
                later.pop(key, None)
        upserts = list(dirty.values())
        deletes, self._deleted_ids = self._deleted_ids, []
        self._dirty = {}
        return upserts, deletes
