"""What this daemon knows of each stack it runs, and the events its state changes make.

The GitOps loop hands every report of a stack this worker holds to `StackBoard.saw` once per
pass. A change of (status, commit) to CONVERGED, FAILED or INVALID, and every drift repair, is an
event; events go to the sinks (the log line, the outgoing notifications) in the order they
happened. The board also keeps what status outputs and metrics show: the commit each stack is at,
when it was last seen settled (its last sync), and how many drifted resources were repaired.

Sinks are called on the engine's pass: they must return at once (the notifier queues and sends
from its own thread).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from reconciler.engine.report import StackReport
from state import StackStatus
from timekeeping import Clock

CONVERGED, FAILED, INVALID, DRIFT_REPAIRED, SUPERSEDED, APPROVAL_WAITING = (
    "converged",
    "failed",
    "invalid",
    "drift_repaired",
    "superseded",
    "approval_waiting",
)
EVENT_OF_STATUS: Mapping[StackStatus, str] = {
    StackStatus.CONVERGED: CONVERGED,
    StackStatus.FAILED: FAILED,
    StackStatus.INVALID: INVALID,
    StackStatus.SUPERSEDED: SUPERSEDED,
    StackStatus.PENDING_APPROVAL: APPROVAL_WAITING,
}


@dataclass(frozen=True)
class StackEvent:
    """One state change of one stack: what happened, at which commit, with counts and reasons."""

    event: str
    stack: str
    commit: str | None
    status: str
    at: float
    counts: Mapping[str, int] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    repaired: tuple[str, ...] = ()  # drift_repaired: the resources repaired


@dataclass(frozen=True)
class StackView:
    """A stack as status outputs show it."""

    stack: str
    status: str
    commit: str | None
    last_sync: float | None = None  # when this worker last saw it settled at its commit
    drift_repairs: int = 0
    reasons: tuple[str, ...] = ()
    held: bool = True  # run by this worker (else read from the shared store)

    def to_json(self) -> dict[str, object]:
        body = dataclasses.asdict(self)
        body["reasons"] = list(self.reasons)
        return body


@dataclass
class _Seen:
    status: StackStatus
    commit: str | None
    engine_repairs: int  # the engine's own count, which starts over when a run is rebuilt
    drift_repairs: int = 0
    last_sync: float | None = None
    reasons: tuple[str, ...] = ()


Sink = Callable[[StackEvent], None]


def _counts(report: StackReport) -> dict[str, int]:
    return dataclasses.asdict(report.counts)


class StackBoard:
    """The stacks this worker runs, as last reported, and the sinks their events go to."""

    def __init__(
        self,
        clock: Clock,
        sinks: Iterable[Sink] = (),
        redact: Callable[[str, str], str] = lambda _s, text: text,
    ) -> None:
        self.clock = clock
        self.sinks = list(sinks)
        self.redact = redact  # (stack, text) -> text without the stack's hidden values
        self._lock = threading.Lock()
        self._seen: dict[str, _Seen] = {}

    def saw(self, report: StackReport) -> None:
        """Take the newest report of a stack this worker holds; send the events it makes."""
        now = self.clock.now()
        reasons = tuple(self.redact(report.stack, str(failure)) for failure in report.failures)
        with self._lock:
            seen = self._seen.get(report.stack)
            events = self._events(seen, report, reasons, now)
            if seen is None:
                seen = self._seen[report.stack] = _Seen(report.status, report.commit, 0)
            repaired_now = report.drift_repairs - seen.engine_repairs
            seen.drift_repairs += repaired_now if repaired_now >= 0 else report.drift_repairs
            seen.engine_repairs = report.drift_repairs
            seen.status, seen.commit, seen.reasons = report.status, report.commit, reasons
            if report.settled:
                seen.last_sync = now
        for event in events:
            for sink in self.sinks:
                sink(event)

    def _events(
        self, seen: _Seen | None, report: StackReport, reasons: tuple[str, ...], now: float
    ) -> list[StackEvent]:
        events = []
        kind = EVENT_OF_STATUS.get(report.status)
        changed = seen is None or (seen.status, seen.commit) != (report.status, report.commit)
        if kind is not None and changed:
            events.append(
                StackEvent(
                    kind, report.stack, report.commit, str(report.status), now, _counts(report), reasons
                )
            )
        previous = 0 if seen is None else seen.engine_repairs
        repaired = (
            report.drift_repairs - previous if report.drift_repairs >= previous else report.drift_repairs
        )
        if repaired > 0 and seen is not None:
            names = report.recent_repairs[-repaired:]
            events.append(
                StackEvent(
                    DRIFT_REPAIRED,
                    report.stack,
                    report.commit,
                    str(report.status),
                    now,
                    {"repaired": repaired},
                    repaired=tuple(names),
                )
            )
        return events

    def forget(self, stack: str) -> None:
        """`stack` left this worker (removed, or its shard moved): its series end here."""
        with self._lock:
            self._seen.pop(stack, None)

    def views(self) -> list[StackView]:
        """Every stack this worker has reported on, by name."""
        with self._lock:
            return [
                StackView(name, str(s.status), s.commit, s.last_sync, s.drift_repairs, s.reasons)
                for name, s in sorted(self._seen.items())
            ]
