"""What a stack's coordinator needs from the engine around it: threads, time, and its children's reports.

The coordinator never calls up into the engine to act: what it asks of the engine for nested
stacks (make a child, remove one) it returns as requests in its pass's result (`ChildRequest`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from reconciler.engine.call_pool import PendingCall
from reconciler.engine.random_source import RandomSource
from reconciler.engine.report import StackReport
from reconciler.engine.settings import EngineSettings
from reconciler.engine.stack_status import StackStatus


class Dispatcher(Protocol):
    """Runs provider calls on the bounded pool; each returned call is delivered to `inbox`.

    `urgent` calls (observations) go ahead of the calls still queued; the others go by
    `priority`, highest first.
    """

    def submit(
        self,
        call: Callable[[], Any],
        inbox: deque[PendingCall],
        tag: object = None,
        *,
        urgent: bool = False,
        allowed: Callable[[], bool] | None = None,
        priority: int = 0,
    ) -> PendingCall: ...


class CallGuards(Protocol):
    """Whether a call decided for a shard may still be sent when a thread takes it."""

    def guard(self, shard: int) -> Callable[[], bool] | None:
        """The check for a call sent now on behalf of `shard` (None: always allowed)."""
        ...


class ChildReports(Protocol):
    """What a parent reads of its nested stacks (converged here or by the worker holding their shard)."""

    def nested_report(self, child: str) -> StackReport | None: ...

    def nested_standing(self, child: str) -> tuple[int | None, StackStatus] | None:
        """The child's generation and status, as its report would say them, without counting
        anything (asked for every child waited on at every pass of its parent)."""
        ...

    def nested_outputs(self, child: str) -> Mapping[str, Any]: ...

    def nested_members(self, child: str) -> Mapping[str, Mapping[str, Any]]:
        """A group's members: member name -> {"physical_id": ..., "attributes": {...}}."""
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
    children: ChildReports
    shared: SharedQueue | None = None
    guards: CallGuards | None = None
    group_sizes: Callable[[str], Mapping[str, Any]] | None = None  # a stack's groups' runtime sizes
    signalled_lately: Callable[[str], bool] | None = None  # whether a physical id's signal was kept lately
