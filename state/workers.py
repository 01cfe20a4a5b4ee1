"""Workers: register and heartbeat, find the live ones, reap the dead and hand their claimed work back."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import sqlalchemy as sa

from state.models import WORK_ITEMS, WORKERS
from state.upserts import dialect_insert


@dataclass(frozen=True)
class WorkerIdentity:
    """Who a worker is: a unique id, the host and the process."""

    id: str
    host: str
    pid: int


@dataclass(frozen=True)
class LiveWorker:
    """A worker with a recent heartbeat."""

    id: str
    host: str
    pid: int
    started_at: float
    heartbeat_at: float


class Heartbeat(enum.Enum):
    """What a heartbeat found: the worker was known, or it (re)joined (first start, or reaped while away)."""

    ALIVE = "alive"
    JOINED = "joined"


@dataclass(frozen=True)
class Reaped:
    """Workers declared dead and the work items taken back from them."""

    workers: tuple[str, ...]
    reclaimed_items: int


def heartbeat(connection: sa.Connection, worker: WorkerIdentity, *, now: float) -> Heartbeat:
    """Record that `worker` is alive now; register it if it is not (or no longer) known."""
    updated = connection.execute(
        sa.update(WORKERS)
        .where(WORKERS.c.id == worker.id)
        .values(heartbeat_at=now, host=worker.host, pid=worker.pid)
    )
    if updated.rowcount:
        return Heartbeat.ALIVE
    # Two transactions registering one id at once both find no row to update: the upsert lets the
    # second refresh the row instead of failing on the primary key.
    connection.execute(
        dialect_insert(connection, WORKERS)
        .values(id=worker.id, host=worker.host, pid=worker.pid, started_at=now, heartbeat_at=now)
        .on_conflict_do_update(
            index_elements=["id"], set_={"heartbeat_at": now, "host": worker.host, "pid": worker.pid}
        )
    )
    return Heartbeat.JOINED


def deregister(connection: sa.Connection, worker_id: str) -> bool:
    """Forget a worker that is shutting down cleanly; True if it was registered."""
    return bool(connection.execute(sa.delete(WORKERS).where(WORKERS.c.id == worker_id)).rowcount)


def live_workers(connection: sa.Connection, *, now: float, dead_after: float) -> list[LiveWorker]:
    """Workers whose last heartbeat is within `dead_after` seconds, ordered by id."""
    rows = connection.execute(
        sa.select(WORKERS.c.id, WORKERS.c.host, WORKERS.c.pid, WORKERS.c.started_at, WORKERS.c.heartbeat_at)
        .where(WORKERS.c.heartbeat_at > now - dead_after)
        .order_by(WORKERS.c.id)
    )
    return [LiveWorker(*row) for row in rows]


def reap_dead_workers(connection: sa.Connection, *, now: float, dead_after: float) -> Reaped:
    """Delete workers silent for `dead_after` seconds and make the items they had claimed ready again.

    Their shard leases are left to expire on their own: a paused worker may still believe it holds
    them until then, and stops acting on them before they can expire.
    """
    dead = tuple(
        connection.execute(
            sa.delete(WORKERS).where(WORKERS.c.heartbeat_at <= now - dead_after).returning(WORKERS.c.id)
        ).scalars()
    )
    orphaned = connection.execute(
        sa.update(WORK_ITEMS)
        .where(
            WORK_ITEMS.c.status == "claimed",
            ~sa.exists().where(WORKERS.c.id == WORK_ITEMS.c.claimed_by),
        )
        .values(status="ready", claimed_by=None, claimed_at=None, next_attempt_at=now)
    )
    return Reaped(workers=dead, reclaimed_items=orphaned.rowcount)
