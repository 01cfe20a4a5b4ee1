"""Retry delays: exponential with jitter per resource, or exactly what the cloud asked for."""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.engine.random_source import RandomSource


@dataclass(frozen=True)
class Backoff:
    """`base * factor**(attempt-1)` capped at `cap`, minus up to `jitter` of it at random."""

    base: float = 1.0
    factor: float = 2.0
    cap: float = 300.0
    jitter: float = 0.5

    def delay(self, attempt: int, requested: float | None, random: RandomSource) -> float:
        """The wait before attempt `attempt + 1`; a cloud's Retry-After (`requested`) wins."""
        if requested is not None:
            return max(0.0, requested)
        raw = min(self.cap, self.base * self.factor ** max(0, attempt - 1))
        return raw * (1.0 - self.jitter * random.random())
