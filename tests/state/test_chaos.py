"""Chaos: workers acquire, renew, write fenced and claim work while the test kills and freezes them.

On PostgreSQL the workers are OS processes, SIGKILLed (and replaced) and SIGSTOPped/SIGCONTed at
random; on SQLite they are threads in one process, stopped dead or frozen in place at random
checkpoints. Work is enqueued throughout; afterwards every invariant of `chaos_invariants` must
hold, and the test prints what it checked. The default run is short; the soaks are marked slow.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from state.store import Store, open_store
from state.work_queue import NewWorkItem, WorkStatus
from tests.state.chaos_invariants import ChaosReport, check_invariants
from tests.state.chaos_worker import CHAOS_SETTINGS, Gate, chaos_stack, run_worker
from timekeeping import SystemClock

REPOSITORY = Path(__file__).resolve().parents[2]
WORKERS = 4
ENQUEUE_BATCH = 100
ENQUEUE_EVERY = 0.1
CHAOS_EVERY = (0.5, 1.5)
PAUSE_FOR = (0.3, 4.0)  # up to twice the lease: long pauses lose leases and claimed work
STALL_TIMEOUT = 30.0  # the backlog drains as long as the workers make progress


@dataclass
class Fleet:
    """The running workers, however they are run, and what was done to them."""

    start: Callable[[str], None]
    kill: Callable[[str], None]
    pause: Callable[[str], None]
    resume: Callable[[str], None]
    stop_all: Callable[[], None]
    alive: list[str] = field(default_factory=list)
    paused: dict[str, float] = field(default_factory=dict)
    kills: int = 0
    pauses: int = 0
    started: int = 0

    def launch(self, prefix: str) -> None:
        worker = f"{prefix}-{self.started}"
        self.started += 1
        self.start(worker)
        self.alive.append(worker)


def _prepare(store: Store) -> None:
    for shard in range(CHAOS_SETTINGS.shard_count):
        store.ensure_stack(chaos_stack(shard))


def _enqueue(store: Store, rng: random.Random) -> int:
    items = [
        NewWorkItem(shard=rng.randrange(CHAOS_SETTINGS.shard_count), stack="chaos-0", kind="create")
        for _ in range(ENQUEUE_BATCH)
    ]
    return len(store.enqueue_work(items))


def _chaos_step(fleet: Fleet, rng: random.Random, now: float, prefix: str) -> None:
    for worker, until in list(fleet.paused.items()):
        if now >= until:
            fleet.resume(worker)
            del fleet.paused[worker]
    candidates = [worker for worker in fleet.alive if worker not in fleet.paused]
    if not candidates:
        return
    victim = rng.choice(candidates)
    if rng.random() < 0.5:
        fleet.kill(victim)
        fleet.alive.remove(victim)
        fleet.kills += 1
        fleet.launch(prefix)
    else:
        fleet.pause(victim)
        fleet.paused[victim] = now + rng.uniform(*PAUSE_FOR)
        fleet.pauses += 1


def _drain(store: Store, enqueued: int) -> None:
    """Wait while the survivors finish the backlog; give up only when they stop making progress."""
    done, last_progress = -1, time.monotonic()
    while done < enqueued and time.monotonic() - last_progress < STALL_TIMEOUT:
        now_done = store.work_counts().by_status.get(WorkStatus.DONE.value, 0)
        if now_done > done:
            done, last_progress = now_done, time.monotonic()
        time.sleep(0.2)


def run_chaos(store: Store, fleet: Fleet, *, seconds: float, seed: int, prefix: str) -> dict[str, object]:
    """Enqueue work and inflict chaos for `seconds`, then let the survivors drain the queue."""
    rng = random.Random(seed)
    enqueued = 0
    for _ in range(WORKERS):
        fleet.launch(prefix)
    began = time.monotonic()
    next_enqueue = next_chaos = began + 1.0
    while (now := time.monotonic()) < began + seconds:
        if now >= next_enqueue:
            enqueued += _enqueue(store, rng)
            next_enqueue = now + ENQUEUE_EVERY
        if now >= next_chaos:
            _chaos_step(fleet, rng, now, prefix)
            next_chaos = now + rng.uniform(*CHAOS_EVERY)
        time.sleep(0.02)
    for worker in list(fleet.paused):
        fleet.resume(worker)
    fleet.paused.clear()
    _drain(store, enqueued)
    fleet.stop_all()
    return {
        "seed": seed,
        "seconds of chaos": seconds,
        "workers at once": WORKERS,
        "workers started in all": fleet.started,
        "killed": fleet.kills,
        "paused": fleet.pauses,
        "enqueued": enqueued,
    }


def process_fleet(url: str, logs: Path) -> Fleet:
    """Workers as OS processes: SIGKILL, SIGSTOP and SIGCONT are the real signals."""
    processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(worker: str) -> None:
        processes[worker] = subprocess.Popen(
            [sys.executable, "-m", "tests.state.chaos_worker", url, worker, str(logs / f"{worker}.jsonl")],
            cwd=REPOSITORY,
        )

    def signal_to(sig: signal.Signals) -> Callable[[str], None]:
        return lambda worker: os.kill(processes[worker].pid, sig)

    def kill(worker: str) -> None:
        os.kill(processes[worker].pid, signal.SIGKILL)
        processes[worker].wait()

    def stop_all() -> None:
        for process in processes.values():
            if process.poll() is None:
                os.kill(process.pid, signal.SIGCONT)
                process.terminate()
        for process in processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    return Fleet(start, kill, signal_to(signal.SIGSTOP), signal_to(signal.SIGCONT), stop_all)


def thread_fleet(url: str, logs: Path) -> Fleet:
    """Workers as threads: 'killed' stops dead at the next checkpoint, 'paused' freezes there."""
    gates: dict[str, Gate] = {}
    threads: dict[str, threading.Thread] = {}

    def start(worker: str) -> None:
        gate = Gate.open()
        stream = (logs / f"{worker}.jsonl").open("a", encoding="utf-8")

        def body() -> None:
            with stream:
                run_worker(url, worker, stream, gate)

        gates[worker] = gate
        threads[worker] = threading.Thread(target=body, name=worker, daemon=True)
        threads[worker].start()

    def kill(worker: str) -> None:
        gates[worker].killed.set()
        gates[worker].running.set()
        threads[worker].join(timeout=30)

    def stop_all() -> None:
        for gate in gates.values():
            gate.stop_requested.set()
            gate.running.set()
        for thread in threads.values():
            thread.join(timeout=30)

    return Fleet(
        start,
        kill,
        lambda worker: gates[worker].running.clear(),
        lambda worker: gates[worker].running.set(),
        stop_all,
    )


def _run_and_check(url: str, tmp_path: Path, *, processes: bool, seconds: float) -> ChaosReport:
    store = open_store(url, clock=SystemClock(), settings=CHAOS_SETTINGS)
    try:
        _prepare(store)
        fleet = process_fleet(url, tmp_path) if processes else thread_fleet(url, tmp_path)
        seed = int(os.environ.get("RECONCILER_CHAOS_SEED", random.SystemRandom().randrange(1 << 30)))
        facts = run_chaos(store, fleet, seconds=seconds, seed=seed, prefix="proc" if processes else "thread")
        enqueued = int(str(facts["enqueued"]))
        report = check_invariants(sorted(tmp_path.glob("*.jsonl")), store, enqueued=enqueued, facts=facts)
    finally:
        store.close()
    print(report.render())
    return report


@pytest.mark.postgres
def test_chaos_on_postgresql_with_processes(postgres_url: str, tmp_path: Path) -> None:
    report = _run_and_check(postgres_url, tmp_path, processes=True, seconds=20)
    assert report.violations == []
    assert int(str(report.facts["killed"])) + int(str(report.facts["paused"])) > 0


def test_chaos_on_sqlite_with_threads(sqlite_url: str, tmp_path: Path) -> None:
    report = _run_and_check(sqlite_url, tmp_path, processes=False, seconds=10)
    assert report.violations == []


@pytest.mark.slow
@pytest.mark.postgres
def test_chaos_soak_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    report = _run_and_check(postgres_url, tmp_path, processes=True, seconds=180)
    assert report.violations == []


@pytest.mark.slow
def test_chaos_soak_on_sqlite(sqlite_url: str, tmp_path: Path) -> None:
    report = _run_and_check(sqlite_url, tmp_path, processes=False, seconds=90)
    assert report.violations == []
