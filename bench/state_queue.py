"""Work items claimed and completed per second, batched, on SQLite or PostgreSQL.

    python -m bench.state_queue                         # SQLite in a temporary file
    python -m bench.state_queue --database 'postgresql+psycopg:///postgres?host=/var/run/postgresql'

Enqueues `--items` items, then `--workers` threads (each with its own store, i.e. its own
connections) claim `--batch` items at a time and complete each batch in one call until the queue is
empty. The figure is items claimed and completed per second of wall time.
"""

from __future__ import annotations

import argparse
import threading
import time

from bench.state_databases import scratch_database
from state.store import Store, open_store
from state.work_queue import NewWorkItem, WorkStatus
from timekeeping import SystemClock


def _drain(url: str, worker: str, batch: int, counts: dict[str, int]) -> None:
    store = open_store(url, clock=SystemClock(), upgrade_schema=False)
    done = 0
    try:
        while items := store.claim_work(worker, batch):
            done += len(store.complete_work(worker, [item.id for item in items]).settled)
    finally:
        store.close()
    counts[worker] = done


def _enqueue(store: Store, items: int) -> float:
    started = time.perf_counter()
    for start in range(0, items, 5_000):
        store.enqueue_work(
            [
                NewWorkItem(shard=n % 64, stack=f"stack-{n % 100}", kind="create")
                for n in range(start, min(items, start + 5_000))
            ]
        )
    return time.perf_counter() - started


def measure(url: str, *, items: int, batch: int, workers: int) -> dict[str, float]:
    """Enqueue, then drain with `workers` threads; the rates in items per second."""
    store = open_store(url, clock=SystemClock())
    try:
        enqueue_seconds = _enqueue(store, items)
        counts: dict[str, int] = {}
        threads = [
            threading.Thread(target=_drain, args=(url, f"bench-{n}", batch, counts)) for n in range(workers)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        drain_seconds = time.perf_counter() - started
        done = store.work_counts().by_status.get(WorkStatus.DONE.value, 0)
    finally:
        store.close()
    if done != items or sum(counts.values()) != items:
        raise SystemExit(
            f"lost work: {items} enqueued, {done} done, {sum(counts.values())} completed by workers"
        )
    return {
        "enqueued_per_second": items / enqueue_seconds,
        "claimed_and_completed_per_second": items / drain_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--database", help="PostgreSQL server URL (a scratch database is made on it); default SQLite"
    )
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--workers", type=int, default=1)
    arguments = parser.parse_args()
    with scratch_database(arguments.database) as url:
        rates = measure(url, items=arguments.items, batch=arguments.batch, workers=arguments.workers)
    backend = "sqlite" if arguments.database is None else url.split(":", 1)[0]
    print(
        f"{backend}: {arguments.items} items, batch {arguments.batch}, {arguments.workers} worker(s): "
        f"enqueued {rates['enqueued_per_second']:,.0f}/s, "
        f"claimed and completed {rates['claimed_and_completed_per_second']:,.0f}/s"
    )


if __name__ == "__main__":
    main()
