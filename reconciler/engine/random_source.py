"""The random source the engine draws backoff jitter and native resources' marker tokens from."""

from __future__ import annotations

from typing import Protocol


class RandomSource(Protocol):
    """Injected so tests seed it; `random.Random` fits."""

    def random(self) -> float: ...

    def getrandbits(self, k: int, /) -> int: ...
