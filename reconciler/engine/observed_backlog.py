"""What an observation pass saw, handled a slice per engine pass.

An observation of a large stack answers for tens of thousands of resources at once. Checking all of
them for drift in the pass the answer arrives would hold back everything else that pass does (a
commit's change, a create that came back) for as long as the check takes; a slice per pass keeps
every pass short, and a stack with work left here counts as busy, so passes follow at once.

A resource that changed since it was seen (another physical id, properties or attributes rewritten
by a call that came back meanwhile: a record's are replaced, never changed in place) is not judged
on what was seen before: the next observation looks at it again.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource
from reconciler.engine.resource_state import ResourceState

SLICE = 2_000  # observed resources checked for drift in one pass

SeenHandler = Callable[[ResourceState, LiveResource | None, float], None]


@dataclass(frozen=True, slots=True)
class _Seen:
    state: ResourceState
    physical_id: str | None
    properties: Any  # the record's objects when seen, compared by identity
    attributes: Any
    live: LiveResource | None
    at: float
    handle: SeenHandler


class ObservedBacklog:
    """Observed resources waiting for their drift check, and what to do once those before are done."""

    def __init__(self) -> None:
        self._waiting: deque[_Seen | Callable[[], None]] = deque()

    def __bool__(self) -> bool:
        return bool(self._waiting)

    def seen(self, state: ResourceState, live: LiveResource | None, at: float, handle: SeenHandler) -> None:
        """`state` was seen `live` at `at`: `handle` it in its turn, unless it changed meanwhile."""
        self._waiting.append(
            _Seen(state, state.physical_id, state.properties, state.attributes, live, at, handle)
        )

    def then(self, action: Callable[[], None]) -> None:
        """Run `action` once everything seen before it was handled."""
        self._waiting.append(action)

    def handle_slice(self, limit: int = SLICE) -> None:
        """Handle up to `limit` of the resources waiting, in the order they were seen."""
        waiting = self._waiting
        handled = 0
        while waiting and handled < limit:
            item = waiting.popleft()
            if not isinstance(item, _Seen):
                item()
                continue
            handled += 1
            state = item.state
            if _unchanged_since_seen(state, item):
                item.handle(state, item.live, item.at)


def _unchanged_since_seen(state: ResourceState, seen: _Seen) -> bool:
    return (
        state.physical_id == seen.physical_id
        and state.properties is seen.properties
        and state.attributes is seen.attributes
    )
