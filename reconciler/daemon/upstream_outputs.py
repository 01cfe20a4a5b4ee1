"""`from_stack` wiring followed in the daemon: a stack whose upstream output moved converges again.

Each submitted stack remembers the upstream outputs it was loaded with. Every `poll` seconds the
outputs it reads are compared with the upstream stacks' current ones (converged at their newest
generation, the rule loading follows); any that moved (a commit to the upstream stack, a drift
repair or replacement there) make the stack pending again, and the note says which moved.
Every daemon follows this for every stack it submitted, as it follows commits, so whichever
holds the stack's shard, now or after a takeover, converges the same definition.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.templates import RepositoryConfig, StackOutputRef
from timekeeping import Clock

Outputs = Mapping[str, Any] | None
OUTPUTS_POLL = 2.0  # seconds between comparisons of the outputs read with the upstream stacks' current ones
_ABSENT = object()


@dataclass(frozen=True)
class MovedOutput:
    """An upstream output a stack reads that changed since the stack was loaded."""

    stack: str
    output: str

    def __str__(self) -> str:
        return f"output {self.output} of stack {self.stack} moved: converging again"


class UpstreamOutputs:
    """The upstream outputs each stack was loaded with, and which of them moved since."""

    def __init__(
        self, outputs_ready: Callable[[str], Outputs], clock: Clock, poll: float = OUTPUTS_POLL
    ) -> None:
        self._outputs_ready = outputs_ready
        self._clock = clock
        self._poll = poll
        self._next_check = 0.0
        self._loaded_with: dict[str, Mapping[str, Outputs]] = {}

    def loaded(self, stack: str, consulted: Mapping[str, Outputs]) -> None:
        """`stack` was submitted, loaded with the `consulted` outputs of its upstream stacks."""
        if consulted:
            self._loaded_with[stack] = dict(consulted)
        else:
            self._loaded_with.pop(stack, None)

    def forget(self, stack: str) -> None:
        self._loaded_with.pop(stack, None)

    def moved(self, config: RepositoryConfig, skip: Collection[str]) -> dict[str, tuple[MovedOutput, ...]]:
        """The stacks (not in `skip`) whose upstream outputs moved, with what moved (when due)."""
        now = self._clock.now()
        if now < self._next_check or not self._loaded_with:
            return {}
        self._next_check = now + self._poll
        current: dict[str, Outputs] = {}
        moved: dict[str, tuple[MovedOutput, ...]] = {}
        for stack, loaded_with in self._loaded_with.items():
            spec = config.stacks.get(stack)
            if spec is None or stack in skip:
                continue
            found = []
            for wiring in spec.parameters.values():
                if not isinstance(wiring, StackOutputRef):
                    continue
                if wiring.stack not in current:
                    current[wiring.stack] = self._outputs_ready(wiring.stack)
                now_outputs, before = current[wiring.stack], loaded_with.get(wiring.stack)
                if now_outputs is None or before is None:
                    continue  # the upstream is not settled at its newest generation: wait for it
                if now_outputs.get(wiring.output, _ABSENT) != before.get(wiring.output, _ABSENT):
                    found.append(MovedOutput(wiring.stack, wiring.output))
            if found:
                moved[stack] = tuple(dict.fromkeys(found))
        return moved
