"""Nested stacks on other workers: how a child's desired state and its results cross the store.

A nested stack is a stack of its own, on the shard its name hashes to (DESIGN.md §5), so its
parent's coordinator and its own may live in different workers. What crosses between them:

- Down, the child's generation. Its `inputs` carry the child's *lineage*: the root stack and, for
  each level of nesting, the resource and the resolved properties that made it. The worker holding
  the child's shard rebuilds the child's definition from its own copy of the root's definition by
  applying the lineage (templates are pure, so this gives the definition the parent made), and
  takes it only when its digest matches the generation's, so a worker that is behind or ahead of
  that commit waits for the generation it can rebuild rather than converging the wrong one.
- Up, the child's stack row (status at a generation, reasons, outputs) and its records (a group's
  members), which the parent's worker reads in one query per pass for every child it waits on or
  watches. A child that converges again on its own (drift repaired) changes its row, and the
  parent reads its values anew.
- Removal: a generation whose digest is `REMOVED`, which the child's holder converges to nothing;
  the parent counts the child's records until none is left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reconciler.engine.desired import DesiredStack
from reconciler.engine.report import StackReport, parse_failure
from reconciler.engine.resource_state import RecordStatus
from reconciler.engine.run_spec import Lineage, RunSpec
from reconciler.templates.stack_identity import nested_stack_name, stack_pseudo_parameters
from state.stacks import GenerationSeen, StackState
from state.store import Store

REMOVED = "removed"  # the definition digest of a generation asking the child to go away
_ON_THEIR_WAY_OUT = frozenset({RecordStatus.RETIRED.value, RecordStatus.DELETE_IN_PROGRESS.value})


def rebuild(root: DesiredStack, lineage: Lineage) -> DesiredStack | None:
    """The nested definition `lineage` makes from the root's definition (None if it makes none)."""
    definition: DesiredStack | None = root
    stack = lineage.root
    for resource, properties in lineage.path:
        if definition is None or resource not in definition.resources:
            return None
        stack = nested_stack_name(stack, resource)
        definition = definition.nested(resource, properties, pseudo_parameters=stack_pseudo_parameters(stack))
    return definition


def report_from_row(row: StackState, commit: str | None) -> StackReport:
    """A child's report as its holder last wrote it to the store."""
    failures = tuple(parse_failure(reason) for reason in row.reasons)
    return StackReport(row.name, row.status, commit, row.status_generation, failures=failures)


@dataclass
class _Watched:
    parent: str
    resource: str
    definition: DesiredStack | None
    row: StackState | None = None
    members: tuple[float, dict[str, Mapping[str, Any]]] | None = None


class RemoteChildren:
    """The nested stacks this worker's coordinators own but whose shards another worker holds."""

    def __init__(self, store: Store, poll_interval: float) -> None:
        self._store = store
        self._poll_interval = poll_interval
        self._watched: dict[str, _Watched] = {}
        self._next_poll_at = 0.0

    def watch(self, child: str, definition: DesiredStack | None) -> None:
        parent, _, resource = child.rpartition("/")
        known = self._watched.get(child)
        if known is None:
            self._watched[child] = _Watched(parent, resource, definition)
        elif definition is not None:
            known.definition = definition

    def forget(self, child: str) -> None:
        self._watched.pop(child, None)

    def watches(self, child: str) -> bool:
        return child in self._watched

    @property
    def any(self) -> bool:
        return bool(self._watched)

    def next_poll_at(self) -> float | None:
        return self._next_poll_at if self._watched else None

    def poll(self, now: float, *, force: bool = False) -> list[tuple[str, str]]:
        """Read every watched child's row (when due); the (parent, resource) of each that changed."""
        if not self._watched or (now < self._next_poll_at and not force):
            return []
        self._next_poll_at = now + self._poll_interval
        rows = self._store.read_stacks(list(self._watched))
        changed: list[tuple[str, str]] = []
        for child, watched in self._watched.items():
            row = rows.get(child)
            if row is None:
                continue
            if watched.row is None or (row.updated_at, row.status) != (
                watched.row.updated_at,
                watched.row.status,
            ):
                changed.append((watched.parent, watched.resource))
            watched.row = row
        return changed

    def report(self, child: str) -> StackReport | None:
        watched = self._watched.get(child)
        if watched is None or watched.row is None:
            return None
        return report_from_row(watched.row, None)

    def outputs(self, child: str) -> Mapping[str, Any]:
        watched = self._watched.get(child)
        if watched is None or watched.row is None:
            return self._store.read_outputs(child)
        return watched.row.outputs

    def members(self, child: str) -> Mapping[str, Mapping[str, Any]]:
        """A remote group's members, read again only when the child's row changed."""
        watched = self._watched.get(child)
        version = watched.row.updated_at if watched is not None and watched.row is not None else -1.0
        if watched is not None and watched.members is not None and watched.members[0] == version:
            return watched.members[1]
        records = {
            record.logical_name: record
            for record in self._store.read_records(child)
            if record.status not in _ON_THEIR_WAY_OUT
        }
        definition = watched.definition if watched is not None else None
        order: Sequence[str] = list(definition.resources) if definition is not None else list(records)
        members: dict[str, Mapping[str, Any]] = {
            name: {"physical_id": records[name].physical_id, "attributes": records[name].attributes}
            for name in order
            if name in records
        }
        if watched is not None:
            watched.members = (version, members)
        return members


class NestedDiscovery:
    """The nested generations recorded on the shards this worker holds, read as they appear.

    Every generation of a newly held shard is read once, then only newer ones (by id) every
    `poll_interval` seconds; the newest per stack waits here until the engine takes it (it may
    have to wait for the root's commit to be read here first).
    """

    def __init__(self, store: Store, poll_interval: float) -> None:
        self._store = store
        self._poll_interval = poll_interval
        self._discovered: set[int] = set()  # shards whose nested generations were read
        self._watermark = 0  # generations up to this id were read on the shards discovered
        self._next_poll_at = 0.0
        self._to_rebuild: dict[str, GenerationSeen] = {}

    def waiting(self, held: Mapping[int, int], now: float) -> list[GenerationSeen]:
        """The newest nested generation of each stack on the shards held, not taken yet (when due)."""
        fresh = [shard for shard in held if shard not in self._discovered]
        if not fresh and now < self._next_poll_at:
            return []
        self._read(held, fresh, now)
        for stack in [stack for stack, seen in self._to_rebuild.items() if seen.shard not in held]:
            del self._to_rebuild[stack]
        return list(self._to_rebuild.values())

    def taken(self, stack: str) -> None:
        self._to_rebuild.pop(stack, None)

    def _read(self, held: Mapping[int, int], fresh: list[int], now: float) -> None:
        self._next_poll_at = now + self._poll_interval
        up_to = self._store.newest_generation_id()
        seen: list[GenerationSeen] = []
        if fresh:
            seen.extend(self._store.generations_since(fresh, 0, up_to))
        known = [shard for shard in held if shard in self._discovered]
        if known and up_to > self._watermark:
            seen.extend(self._store.generations_since(known, self._watermark, up_to))
        self._watermark = max(self._watermark, up_to)
        self._discovered = set(held)
        for generation in seen:
            if RunSpec.from_inputs(generation.inputs) is None:
                continue
            waiting = self._to_rebuild.get(generation.stack)
            if waiting is None or waiting.generation < generation.generation:
                self._to_rebuild[generation.stack] = generation
