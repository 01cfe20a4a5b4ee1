"""Scaling policies' signals, read from the store for the shards held, and acted on.

Any daemon's agent API keeps a signal in the database (`state.scaling`); the holder of the
policy's shard reads the waiting ones every `scaling_poll` seconds while it converges a stack with
a scaling policy, and at once when told a signal arrived (`Engine.signal_arrived`, called by the
agent API of the same process), and decides each (`GroupScaling.signalled`). A new size is written under the
shard's lease before anything acts on it: a worker that lost its lease scales nothing, and the
signal waits for the next holder. A signal whose policy or group is not settled yet waits too, at
most `SIGNAL_PATIENCE` seconds.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from reconciler.engine.group_scaling import NotScaled, NotYet
from state.errors import StateError
from state.fencing import Fence
from state.scaling import ScalingSignal, ScalingStore

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun

LOG = logging.getLogger(__name__)
SIGNAL_PATIENCE = 3600.0  # a signal waiting longer for its policy or group to settle is dropped
DropShard = Callable[[int, StateError], None]


class ScalingSignals:
    """Reads and acts on the signals of the shards held."""

    def __init__(self, store: ScalingStore, poll: float) -> None:
        self.store = store
        self._poll = poll
        self._read_at = -math.inf
        self._watching = False  # whether a stack held has a scaling policy (only then is it read)

    def read_soon(self) -> None:
        """A signal arrived (any thread may say so): read at the next pass, not at the next tick."""
        self._read_at = -math.inf

    def next_read_at(self) -> float | None:
        """When the next read is due (None: no stack held has a scaling policy)."""
        return self._read_at + self._poll if self._watching else None

    def take(
        self, runs: Mapping[str, StackRun], held: Mapping[int, int], now: float, drop_shard: DropShard
    ) -> None:
        """Act on the signals waiting on `held` shards, when a read is due."""
        if now < self._read_at + self._poll:
            return
        self._read_at = now
        self._watching = any(run.scaling.has_policies for run in runs.values())
        if not self._watching:
            return
        acted: list[int] = []
        for signal in self.store.waiting_signals(list(held)):
            if self._act(signal, runs.get(signal.stack), held, now, drop_shard):
                acted.append(signal.id)
        self.store.signals_acted_on(acted)

    def _act(
        self,
        signal: ScalingSignal,
        run: StackRun | None,
        held: Mapping[int, int],
        now: float,
        drop: DropShard,
    ) -> bool:
        """Decide one signal; whether it is over (acted on, refused, or waited on too long)."""
        waited_too_long = now - signal.received_at > SIGNAL_PATIENCE
        if run is None or run.shard not in held:
            return waited_too_long  # the stack is not open here yet (a restart, a takeover)
        outcome = run.scaling.signalled(signal.resource, now)
        if isinstance(outcome, NotYet):
            return waited_too_long
        if isinstance(outcome, NotScaled):
            LOG.info("signal of %s/%s changes nothing: %s", signal.stack, signal.resource, outcome.reason)
            return True
        try:
            fence = Fence(run.shard, held[run.shard])
            self.store.put_group_size(signal.stack, outcome.group, outcome.size, fence=fence)
        except StateError as error:
            drop(run.shard, error)
            return False
        run.scaling.scaled(outcome)
        LOG.info("stack %s: %s", signal.stack, outcome)
        return True

    def start_cooldowns(
        self, runs: Iterable[StackRun], held: Mapping[int, int], now: float, drop: DropShard
    ) -> None:
        """Store the cooldowns of groups whose create or update completed (Heat's group starts its
        own cooldown then), under the shard's lease."""
        for run in runs:
            if run.shard not in held:
                continue
            try:
                for group, size in run.scaling.cooldowns_due(now).items():
                    self.store.put_group_size(run.name, group, size, fence=Fence(run.shard, held[run.shard]))
                    run.scaling.cooled(group, size)
            except StateError as error:
                drop(run.shard, error)

    def forget_overridden(self, runs: Iterable[StackRun], held: Mapping[int, int], drop: DropShard) -> None:
        """Delete the stored sizes a commit overrode (it declared desired_capacity with new bounds)."""
        for run in runs:
            forgotten = run.scaling.forgotten
            if not forgotten or run.shard not in held:
                continue
            try:
                for group in sorted(forgotten):
                    self.store.forget_group_size(run.name, group, fence=Fence(run.shard, held[run.shard]))
            except StateError as error:
                drop(run.shard, error)
                continue
            forgotten.clear()
