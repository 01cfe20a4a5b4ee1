"""A worker for the chaos test: keeps leases, makes fenced writes, claims and completes work, logs it all.

Run as a process (`python -m tests.state.chaos_worker URL WORKER_ID LOG`) so the test can SIGKILL,
SIGSTOP and SIGCONT it, or as a thread through `run_worker` with a `Gate` the test uses to stop or
freeze it in place (SQLite, one process). Every log line is one JSON object, flushed at once, so a
killed worker loses at most the line it was writing; the invariant checker reads these logs and the
database.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, Any

from state.errors import CommitOutcomeUnknown, DatabaseUnavailable, StaleLease
from state.lease_settings import LeaseSettings
from state.records import RecordWrite
from state.shard_keeper import Kept, ShardKeeper
from state.store import Store, open_store
from state.workers import WorkerIdentity
from timekeeping import SystemClock

CHAOS_SETTINGS = LeaseSettings(shard_count=8, lease_seconds=2.0, renew_seconds=0.5, safety_margin=0.3)
CLAIM_BATCH = 100
IDLE_PAUSE = 0.02
WORK_PAUSE_PER_ITEM = 0.0002  # stands for the cloud call each item makes
CLOUD_CALL = 0.05  # between taking a shard's fence and recording a result under it


def chaos_stack(shard: int) -> str:
    """The stack that fenced writes for `shard` go to."""
    return f"chaos-{shard}"


class Killed(Exception):
    """Raised inside a thread worker when the test 'kills' it: it stops at once, cleaning nothing up."""


@dataclass
class Gate:
    """Lets a test stop or freeze a thread worker at its next checkpoint; a no-op for processes."""

    stop_requested: threading.Event
    killed: threading.Event
    running: threading.Event  # cleared = frozen

    @classmethod
    def open(cls) -> Gate:
        gate = cls(threading.Event(), threading.Event(), threading.Event())
        gate.running.set()
        return gate

    def checkpoint(self) -> None:
        self.running.wait()
        if self.killed.is_set():
            raise Killed


class EventLog:
    """JSON lines, one per event, flushed as written."""

    def __init__(self, stream: IO[str], worker: str, clock: SystemClock) -> None:
        self._stream = stream
        self._worker = worker
        self._clock = clock

    def at(self) -> float:
        return self._clock.now()

    def write(self, kind: str, **fields: Any) -> None:
        line = {"kind": kind, "worker": self._worker, "at": self.at(), **fields}
        self._stream.write(json.dumps(line) + "\n")
        self._stream.flush()


@dataclass(frozen=True)
class WriteContext:
    """What a worker's fenced writes go through."""

    store: Store
    keeper: ShardKeeper
    log: EventLog
    gate: Gate
    clock: SystemClock


def _fenced_writes(context: WriteContext, sequence: int) -> None:
    store, keeper, log, gate, clock = context.store, context.keeper, context.log, context.gate, context.clock
    for fence in keeper.fences().values():
        gate.checkpoint()
        clock.sleep(CLOUD_CALL)  # the cloud call whose result the write records: a pause here goes stale
        gate.checkpoint()
        before = clock.now()
        marker = {"writer": keeper.worker.id, "epoch": fence.epoch, "sequence": sequence}
        write = RecordWrite(
            chaos_stack(fence.shard), "marker", "OS::Heat::None", "CREATED", 1, attributes=marker
        )
        try:
            store.write_records(fence, [write])
        except StaleLease:
            log.write(
                "write", shard=fence.shard, epoch=fence.epoch, t_before=before, t_after=clock.now(), ok=False
            )
            continue
        log.write(
            "write", shard=fence.shard, epoch=fence.epoch, t_before=before, t_after=clock.now(), ok=True
        )


def run_worker(url: str, worker_id: str, log_stream: IO[str], gate: Gate) -> None:
    """The worker loop, until the gate asks it to stop (clean leave) or kills it (no cleanup)."""
    clock = SystemClock()
    log = EventLog(log_stream, worker_id, clock)
    log.write("started")
    store = open_store(url, clock=clock, settings=CHAOS_SETTINGS, upgrade_schema=False)
    keeper = ShardKeeper(store, WorkerIdentity(worker_id, socket.gethostname(), os.getpid()), clock=clock)
    sequence = 0
    try:
        while not gate.stop_requested.is_set():
            gate.checkpoint()
            try:
                if clock.now() >= keeper.next_tick_at():
                    began = clock.now()
                    outcome = keeper.tick()
                    if isinstance(outcome, Kept):
                        held = [[lease.shard, lease.epoch, lease.until] for lease in outcome.balanced.held]
                        log.write("tick", began=began, held=held, margin=CHAOS_SETTINGS.safety_margin)
                    else:
                        log.write("paused", began=began, reason=outcome.reason)
                    sequence += 1
                    _fenced_writes(WriteContext(store, keeper, log, gate, clock), sequence)
                gate.checkpoint()
                items = store.claim_work(worker_id, CLAIM_BATCH)
                if not items:
                    clock.sleep(IDLE_PAUSE)
                    continue
                log.write("claimed", ids=[item.id for item in items])
                clock.sleep(WORK_PAUSE_PER_ITEM * len(items))
                gate.checkpoint()
                settled = store.complete_work(worker_id, [item.id for item in items])
                log.write("completed", ids=list(settled.settled), not_held=list(settled.not_held))
            except (DatabaseUnavailable, CommitOutcomeUnknown) as error:
                log.write("database", error=str(error))
                clock.sleep(IDLE_PAUSE)
        keeper.stop()
        log.write("stopped")
    except Killed:
        log.write("killed")
    finally:
        store.close()


def main(argv: list[str]) -> None:
    """Process entry: run until SIGTERM, then leave cleanly."""
    url, worker_id, log_path = argv
    gate = Gate.open()

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        gate.stop_requested.set()

    signal.signal(signal.SIGTERM, on_term)
    with Path(log_path).open("a", encoding="utf-8") as stream:
        run_worker(url, worker_id, stream, gate)


if __name__ == "__main__":
    main(sys.argv[1:])
