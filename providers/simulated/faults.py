"""Failure injection, part of the simulated cloud's API: what goes wrong, how often, and when.

Two kinds of fault:

- call faults, drawn per API call: a 500, a 503, a 429 with Retry-After, a timeout before the cloud
  acts, or a lost response after it acted (the case idempotency markers exist for), all transient;
  or a 403 "forbidden" (a policy refusing the call), the one permanent kind: retrying cannot fix
  it, and the provider boundary maps it to `Permanent` like any other 403. A random share of calls
  (`error_rate`) and one-shot faults queued with `FaultPlan.fail_next` both apply.
- fates of resources that build (servers, volumes): stay in BUILD for ever, reach ACTIVE and go to
  ERROR `fate_delay` seconds later, or reach ACTIVE and vanish `fate_delay` seconds later.

Every draw reads the injected random source, so a seeded run is reproducible.
"""

from __future__ import annotations

import enum
import random
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace


class CallFault(enum.Enum):
    """What goes wrong with one API call."""

    SERVER_ERROR = "500"
    UNAVAILABLE = "503"
    RATE_LIMITED = "429"
    TIMEOUT = "timeout"  # the call is lost before the cloud acts
    LOST_RESPONSE = "lost-response"  # the cloud acts, the answer never arrives
    FORBIDDEN = "403"  # a policy refuses the call: permanent, nothing is done


class Fate(enum.Enum):
    """What becomes of a resource that builds."""

    NORMAL = "normal"
    STUCK_IN_BUILD = "stuck"
    ERROR_LATER = "error-later"
    VANISH_LATER = "vanish-later"


@dataclass(frozen=True)
class Faults:
    """How often things go wrong; all rates are probabilities in [0, 1]."""

    error_rate: float = 0.0
    kinds: tuple[CallFault, ...] = (CallFault.SERVER_ERROR, CallFault.TIMEOUT)
    retry_after: float = 1.0
    # Only calls of these operations ("create", "update", "delete", "get", "list") fail; empty = all.
    operations: frozenset[str] = frozenset()
    stuck_rate: float = 0.0
    error_later_rate: float = 0.0
    vanish_rate: float = 0.0
    fate_delay: float = 30.0

    @classmethod
    def parse(cls, text: str) -> Faults:
        """Faults from `key=value,...`, e.g. `error_rate=0.1,kinds=500+429+403,retry_after=2`.

        Raises ValueError naming the bad key or value.
        """
        settings: dict[str, object] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, _, value = item.partition("=")
            key = key.strip().replace("-", "_")
            if key == "kinds":
                settings[key] = tuple(CallFault(kind) for kind in value.split("+") if kind)
            elif key == "operations":
                settings[key] = frozenset(value.split("+"))
            elif key in _RATES:
                settings[key] = float(value)
            else:
                raise ValueError(f"unknown fault setting {key!r} (known: kinds, operations, {_RATE_NAMES})")
        return replace(cls(), **settings)  # type: ignore[arg-type]


_RATES = ("error_rate", "retry_after", "stuck_rate", "error_later_rate", "vanish_rate", "fate_delay")
_RATE_NAMES = ", ".join(_RATES)


@dataclass
class _Queued:
    fault: CallFault
    remaining: int
    operation: str | None
    collection: str | None


@dataclass
class FaultPlan:
    """The faults in force: random ones from `faults`, and one-shot ones queued by tests."""

    faults: Faults = field(default_factory=Faults)
    random: random.Random = field(default_factory=random.Random)
    _queued: list[_Queued] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail_next(
        self,
        fault: CallFault,
        count: int = 1,
        *,
        operation: str | None = None,
        collection: str | None = None,
    ) -> None:
        """Make the next `count` matching calls fail with `fault`."""
        with self._lock:
            self._queued.append(_Queued(fault, count, operation, collection))

    def draw(self, operation: str, collection: str) -> CallFault | None:
        """The fault for this call, if any."""
        if self._queued:
            queued = self._take_queued(operation, collection)
            if queued is not None:
                return queued
        faults = self.faults
        if faults.error_rate <= 0.0 or (faults.operations and operation not in faults.operations):
            return None
        with self._lock:
            if self.random.random() >= faults.error_rate:
                return None
            return self.random.choice(faults.kinds)

    def draw_fate(self) -> Fate:
        """The fate of a resource that starts building now."""
        faults = self.faults
        thresholds: Mapping[Fate, float] = {
            Fate.STUCK_IN_BUILD: faults.stuck_rate,
            Fate.ERROR_LATER: faults.error_later_rate,
            Fate.VANISH_LATER: faults.vanish_rate,
        }
        if not any(thresholds.values()):
            return Fate.NORMAL
        with self._lock:
            roll = self.random.random()
        for fate, rate in thresholds.items():
            if roll < rate:
                return fate
            roll -= rate
        return Fate.NORMAL

    def _take_queued(self, operation: str, collection: str) -> CallFault | None:
        with self._lock:
            for queued in self._queued:
                if queued.operation not in (None, operation) or queued.collection not in (None, collection):
                    continue
                queued.remaining -= 1
                if queued.remaining <= 0:
                    self._queued.remove(queued)
                return queued.fault
        return None
