"""What a stack's coordinator needs from the engine around it: threads, time, and nested stacks."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from reconciler.engine.batching import BatchPolicy
from reconciler.engine.call_pool import PendingCall
from reconciler.engine.desired import DesiredStack, Policy
from reconciler.engine.nested_handoff import Lineage
from reconciler.engine.random_source import RandomSource
from reconciler.engine.report import StackReport
from reconciler.engine.settings import EngineSettings


class Dispatcher(Protocol):
    """Runs provider calls on the bounded pool; each returned call is delivered to `inbox`.

    `urgent` calls (observations) go ahead of the calls still queued.
    """

    def submit(
        self, call: Callable[[], Any], inbox: deque[PendingCall], tag: object = None, *, urgent: bool = False
    ) -> PendingCall: ...


class NestedStacks(Protocol):
    """Nested stacks are stacks of their own; the engine converges them beside their parent."""

    def submit_nested(
        self,
        child: str,
        commit: str,
        definition: DesiredStack,
        policy: Policy,
        *,
        group_member: bool,
        is_group: bool,
        batch: BatchPolicy | None = None,
        lineage: Lineage | None = None,
    ) -> int:
        """Hand the child its desired definition; returns the child's generation number.

        `lineage` says how the child's definition is made from its root's, so the worker holding
        the child's shard (maybe another) can make it too.
        """
        ...

    def nested_report(self, child: str) -> StackReport | None: ...

    def nested_outputs(self, child: str) -> Mapping[str, Any]: ...

    def nested_members(self, child: str) -> Mapping[str, Mapping[str, Any]]:
        """A group's members: member name -> {"physical_id": ..., "attributes": {...}}."""
        ...

    def remove_nested(self, child: str) -> bool:
        """Converge the child to nothing; True once it holds no resources any more."""
        ...


class SharedQueue(Protocol):
    """Calls a coordinator may queue for other workers when its own pool is full (DESIGN.md §5)."""

    def room(self) -> int:
        """How many more calls may be queued now (0 when no other worker is alive)."""
        ...

    def offer(
        self, stack: str, shard: int, spec: Any, inbox: deque[PendingCall], tag: object
    ) -> PendingCall | None:
        """Queue the call `spec` describes; its outcome arrives in `inbox` (None: not now)."""
        ...


@dataclass(frozen=True)
class RunContext:
    settings: EngineSettings
    random: RandomSource
    dispatcher: Dispatcher
    nested: NestedStacks
    shared: SharedQueue | None = None
