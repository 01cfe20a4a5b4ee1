"""Resource records of one large stack: a fenced batch write, a fenced batch update, a full read.

    python -m bench.state_records                       # SQLite in a temporary file
    python -m bench.state_records --database 'postgresql+psycopg:///postgres?host=/var/run/postgresql'

The shape of a 50,000-resource stack: each record carries a few properties and attributes.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from bench.state_databases import scratch_database
from state.fencing import Fence
from state.lease_results import Acquired
from state.records import RecordWrite
from state.store import open_store
from timekeeping import SystemClock


def _records(count: int) -> list[RecordWrite]:
    return [
        RecordWrite(
            stack="big",
            logical_name=f"server_{n}",
            type="OS::Nova::Server",
            status="CREATED",
            generation=1,
            physical_id=f"00000000-0000-0000-0000-{n:012d}",
            properties={"flavor": "m1.small", "image": "cirros", "name": f"server-{n}"},
            attributes={"first_address": f"10.{n // 65536}.{n // 256 % 256}.{n % 256}"},
        )
        for n in range(count)
    ]


def measure(url: str, count: int) -> dict[str, float]:
    """Seconds to insert, update and read back `count` records."""
    store = open_store(url, clock=SystemClock())
    try:
        shard = store.ensure_stack("big").shard
        lease = store.acquire("bench", shard)
        assert isinstance(lease, Acquired)
        fence = Fence(shard, lease.epoch)
        writes = _records(count)

        started = time.perf_counter()
        ids = store.write_records(fence, writes).record_ids
        inserted = time.perf_counter() - started

        updates = [
            replace(write, status="UPDATED", record_id=record_id)
            for write, record_id in zip(writes, ids, strict=True)
        ]
        started = time.perf_counter()
        store.write_records(fence, updates)
        updated = time.perf_counter() - started

        started = time.perf_counter()
        read = store.read_records("big")
        reading = time.perf_counter() - started
    finally:
        store.close()
    if len(read) != count or any(record.status != "UPDATED" for record in read):
        raise SystemExit("records did not round-trip")
    return {"insert": inserted, "update": updated, "read": reading}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--database", help="PostgreSQL server URL (a scratch database is made on it); default SQLite"
    )
    parser.add_argument("--records", type=int, default=50_000)
    arguments = parser.parse_args()
    with scratch_database(arguments.database) as url:
        seconds = measure(url, arguments.records)
    backend = "sqlite" if arguments.database is None else "postgresql"
    print(
        f"{backend}: {arguments.records} records: insert {seconds['insert']:.2f} s, "
        f"update {seconds['update']:.2f} s, read {seconds['read']:.2f} s (each one fenced transaction)"
    )


if __name__ == "__main__":
    main()
