"""The agent API's way to wake the engine of its own process when it kept a signal (and, on
PostgreSQL, the listener's when any daemon of the fleet kept one: `state.signal_notices`).

The agent API is bound before the engine is made (a daemon that cannot listen holds no shard), so
it is handed this doorbell, and the engine is wired to it once it exists.
"""

from __future__ import annotations

from collections.abc import Collection

from reconciler.engine.engine import Engine


class SignalDoorbell:
    """Rung by the agent API or the signal listener (any thread); wakes the engine, once there is one."""

    def __init__(self) -> None:
        self.engine: Engine | None = None

    def ring(self) -> None:
        if self.engine is not None:
            self.engine.signal_arrived()

    def ring_resources(self, waiters: Collection[str] | None = None) -> None:
        """A deployment's or a handle's signal was kept, waited for by `waiters` (physical ids;
        None: by any resource waiting for a signal)."""
        if self.engine is not None:
            self.engine.resource_signalled(waiters)
