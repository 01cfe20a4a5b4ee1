"""Takeover time: how long after a lease holder is SIGKILLed until its shards are held by the others.

    python -m bench.state_takeover                      # SQLite, product defaults (lease 15 s, renew 5 s)
    python -m bench.state_takeover --database 'postgresql+psycopg:///postgres?host=/var/run/postgresql'
    python -m bench.state_takeover --lease 2 --renew 0.5

Starts `--workers` worker processes that keep leases with `ShardKeeper` on the real clock, waits until
the shards are split fairly, SIGKILLs one, and polls the lease table until every shard it held is
held, unexpired, by a survivor. The promise: within one lease plus one renew period.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from bench.state_databases import scratch_database
from state.lease_settings import LeaseSettings
from state.shard_keeper import ShardKeeper
from state.store import Store, open_store
from state.workers import WorkerIdentity
from timekeeping import SystemClock

POLL = 0.02


def run_worker(url: str, worker: str, settings: LeaseSettings) -> None:
    """A worker that only keeps leases, ticking when its keeper says to, until killed."""
    clock = SystemClock()
    store = open_store(url, clock=clock, settings=settings, upgrade_schema=False)
    keeper = ShardKeeper(store, WorkerIdentity(worker, socket.gethostname(), os.getpid()), clock=clock)
    while True:
        keeper.tick()
        clock.sleep(max(0.0, keeper.next_tick_at() - clock.now()))


def _owners(store: Store) -> dict[int, str | None]:
    return {lease.shard: None if lease.expired else lease.owner for lease in store.lease_table()}


def _wait_until(condition: object, timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if callable(condition) and condition():
            return time.monotonic() - started
        time.sleep(POLL)
    raise SystemExit(f"condition not met within {timeout:.0f} s")


def measure(url: str, settings: LeaseSettings, workers: int) -> float:
    """Seconds from SIGKILL of one holder until all its shards are held by survivors."""
    store = open_store(url, clock=SystemClock(), settings=settings)
    arguments = [str(settings.lease_seconds), str(settings.renew_seconds), str(settings.shard_count)]
    names = [f"bench-{n}" for n in range(workers)]
    processes = {
        name: subprocess.Popen(
            [sys.executable, "-m", "bench.state_takeover", "--run-worker", url, name, *arguments],
            cwd=Path(__file__).resolve().parents[1],
        )
        for name in names
    }
    try:
        share = settings.shard_count // workers

        def balanced() -> bool:
            owners = list(_owners(store).values())
            return all(owners.count(name) >= share for name in names)

        _wait_until(balanced, timeout=10 * settings.lease_seconds)
        victim = names[0]
        victim_shards = [shard for shard, owner in _owners(store).items() if owner == victim]
        processes[victim].send_signal(signal.SIGKILL)
        processes[victim].wait()
        killed_at = time.monotonic()

        def taken_over() -> bool:
            owners = _owners(store)
            return all(owners[shard] not in (None, victim) for shard in victim_shards)

        _wait_until(taken_over, timeout=10 * settings.lease_seconds)
        return time.monotonic() - killed_at
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
        store.close()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--run-worker":
        url, worker, lease, renew, shards = sys.argv[2:7]
        run_worker(url, worker, LeaseSettings(int(shards), float(lease), float(renew), safety_margin=0.0))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--database", help="PostgreSQL server URL (a scratch database is made on it); default SQLite"
    )
    parser.add_argument("--lease", type=float, default=LeaseSettings().lease_seconds)
    parser.add_argument("--renew", type=float, default=LeaseSettings().renew_seconds)
    parser.add_argument("--shards", type=int, default=LeaseSettings().shard_count)
    parser.add_argument("--workers", type=int, default=3)
    options = parser.parse_args()
    settings = LeaseSettings(options.shards, options.lease, options.renew, safety_margin=0.0)
    with scratch_database(options.database) as url:
        seconds = measure(url, settings, options.workers)
    backend = "sqlite" if options.database is None else "postgresql"
    bound = settings.lease_seconds + settings.renew_seconds
    verdict = "within" if seconds <= bound else "OVER"
    setup = f"{options.workers} workers, {settings.shard_count} shards"
    timing = f"lease {settings.lease_seconds:g} s, renew {settings.renew_seconds:g} s"
    print(
        f"{backend}: {setup}, {timing}: shards of a SIGKILLed holder held by others after {seconds:.2f} s "
        f"({verdict} lease + renew = {bound:g} s)"
    )


if __name__ == "__main__":
    main()
