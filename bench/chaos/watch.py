"""The run's observer: a thread that reads the database and the cloud's counts every second and
keeps what the figures need: when convergence last moved (stalls), when every root stack reached
CONVERGED at the commits it must (convergence), and how long each lost daemon's shards took to
find a live holder (takeovers) or a new daemon to get its fair share (rebalancing).

"Moved" means the records by status, the stacks by status and generation, or the cloud's item
counts changed; a reading that fails (the database restarting) neither moves nor stalls anything.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from bench.chaos.served_cloud import ServedCloud
from bench.chaos.state_probe import StateProbe, StateSnapshot
from bench.chaos.workload import KINDS

POLL_SECONDS = 1.0


@dataclass
class Handover:
    """Shards that must find a holder other than `worker` (takeover), or a share `worker` must get
    (rebalancing); `seconds` is set once it happened."""

    worker: str
    started: float
    shards: frozenset[int] = frozenset()
    share: int = 0
    seconds: float | None = None

    def settled(self, snapshot: StateSnapshot) -> bool:
        if self.share:
            return snapshot.shards_per_worker().get(self.worker, 0) >= self.share
        return all(snapshot.holder(shard) not in (None, self.worker) for shard in self.shards)


@dataclass
class Stall:
    started: float
    seconds: float


@dataclass
class Watcher:
    """Runs as a thread from `start()` to `stop()`; times are seconds since `origin` (monotonic)."""

    probe: StateProbe
    cloud: ServedCloud
    stall_after: float
    origin: float = field(default_factory=time.monotonic)
    latest: StateSnapshot | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    expected_commits: Mapping[str, frozenset[str]] = field(default_factory=dict)
    converged_since: float | None = None  # the start of the current converged spell
    first_converged: float | None = None
    takeovers: list[Handover] = field(default_factory=list)
    joins: list[Handover] = field(default_factory=list)
    stalls: list[Stall] = field(default_factory=list)
    longest_quiet: float = 0.0
    events: list[tuple[float, str]] = field(default_factory=list)
    _last_key: object = None
    _last_move: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _thread: threading.Thread | None = None

    def now(self) -> float:
        return time.monotonic() - self.origin

    def note(self, event: str) -> None:
        with self._lock:
            self.events.append((self.now(), event))
        print(f"  [{self.now():7.1f} s] {event}", flush=True)

    def start(self) -> None:
        self._last_move = self.now()
        self._thread = threading.Thread(target=self._loop, name="chaos-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is None or self._stop.is_set():
            return
        self._stop.set()
        self._thread.join(timeout=30)
        if self.converged_since is None:
            self._close_stall(self.now())

    def expect(self, commits: Mapping[str, frozenset[str]]) -> None:
        """From now on, converged means every root stack CONVERGED at one of these commits."""
        with self._lock:
            self.expected_commits = dict(commits)
            self.converged_since = self.first_converged = None

    def lost(self, worker: str) -> None:
        """`worker` stops holding anything now: time until its shards have other live holders."""
        snapshot = self.latest
        shards = snapshot.held_by(worker) if snapshot is not None else frozenset()
        if not shards:
            self.note(f"{worker} held no shard: no takeover to time")
            return
        with self._lock:
            self.takeovers.append(Handover(worker, self.now(), shards=shards))

    def joined(self, worker: str, share: int) -> None:
        with self._lock:
            self.joins.append(Handover(worker, self.now(), share=share))

    def handovers_pending(self) -> bool:
        with self._lock:
            return any(handover.seconds is None for handover in [*self.takeovers, *self.joins])

    def audited_fraction(self, wanted_total: int) -> float:
        """The cloud's servers, ports and volumes as a share of `wanted_total`."""
        return sum(self.counts.get(kind, 0) for kind in KINDS) / max(1, wanted_total)

    def _loop(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self._observe()

    def _observe(self) -> None:
        snapshot = self.probe.snapshot()
        try:
            counts = self.cloud.counts()
        except OSError:
            counts = dict(self.counts)
        now = self.now()
        with self._lock:
            self.counts = counts
            if snapshot is None:
                return
            self.latest = snapshot
            key = (snapshot.progress_key(), tuple(sorted(counts.items())))
            converged = self._converged(snapshot)
            if key != self._last_key or converged:
                self._close_stall(now)
                self._last_key, self._last_move = key, now
            if converged and self.converged_since is None:
                self.converged_since = now
                self.first_converged = self.first_converged or now
            elif not converged:
                self.converged_since = None
            for handover in [*self.takeovers, *self.joins]:
                if handover.seconds is None and handover.settled(snapshot):
                    handover.seconds = now - handover.started

    def _close_stall(self, now: float) -> None:
        quiet = now - self._last_move
        self.longest_quiet = max(self.longest_quiet, quiet)
        if quiet > self.stall_after:
            self.stalls.append(Stall(self._last_move, quiet))
        self._last_move = now

    def _converged(self, snapshot: StateSnapshot) -> bool:
        if not self.expected_commits:
            return False
        for name, commits in self.expected_commits.items():
            row = snapshot.stacks.get(name)
            if row is None or row.status != "CONVERGED" or row.newest_commit not in commits:
                return False
            if row.status_generation != row.newest_generation:
                return False
        return True
