"""The agent API's way to wake the engine of its own process when it kept a signal (and, on
PostgreSQL, the listener's when any daemon of the fleet kept one: `state.signal_notices`).

The agent API is bound before the engine is made (a daemon that cannot listen holds no shard), so
it is handed this doorbell, and the engine is wired to it once it exists.
"""

from __future__ import annotations

from reconciler.engine.engine import Engine


class SignalDoorbell:
    """Rung by the agent API or the signal listener (any thread); wakes the engine, once there is one."""

    def __init__(self) -> None:
        self.engine: Engine | None = None

    def ring(self) -> None:
        if self.engine is not None:
            self.engine.signal_arrived()

    def ring_any(self) -> None:
        """Some daemon of the fleet kept a signal (a notice names no kind worth telling apart)."""
        self.ring()
        self.ring_resources()

    def ring_resources(self) -> None:
        """A deployment's or a handle's signal was kept."""
        if self.engine is not None:
            self.engine.resource_signalled()
