"""State store: SQLAlchemy models, migrations, sharded leases with fencing, the work queue, the notes outbox.

May import SQLAlchemy and Alembic; never the engine, the templates or any provider. The public
entry points are re-exported here; each lives in a module named for its idea.
"""

from state.compared_records import ComparedRecord
from state.errors import CommitOutcomeUnknown, DatabaseUnavailable, InvalidDatabaseUrl, StaleLease, StateError
from state.fencing import Fence
from state.lease_results import Acquired, HeldBy, HeldShard, Lost, Released
from state.lease_settings import LeaseSettings
from state.migrate import upgrade
from state.outbox import NoteLine, PendingNote
from state.plan_memos import PlanMemo, PlanMemos
from state.records import RecordedResource, RecordsWritten, RecordWrite
from state.shard_keeper import Kept, NotHeld, Paused, ShardKeeper
from state.sharding import DEFAULT_SHARD_COUNT, shard_for
from state.stacks import (
    Generation,
    NewerGeneration,
    NewGeneration,
    StackRef,
    StackState,
    StackStatus,
    UnchangedGeneration,
)
from state.store import Purged, Store, open_store
from state.work_queue import ClaimedWorkItem, NewWorkItem, RetryRequest, Settled, WorkStatus
from state.workers import Heartbeat, LiveWorker, WorkerIdentity

__all__ = [
    "DEFAULT_SHARD_COUNT",
    "Acquired",
    "ClaimedWorkItem",
    "CommitOutcomeUnknown",
    "ComparedRecord",
    "DatabaseUnavailable",
    "Fence",
    "Generation",
    "Heartbeat",
    "HeldBy",
    "HeldShard",
    "InvalidDatabaseUrl",
    "Kept",
    "LeaseSettings",
    "LiveWorker",
    "Lost",
    "NewGeneration",
    "NewWorkItem",
    "NewerGeneration",
    "NotHeld",
    "NoteLine",
    "Paused",
    "PendingNote",
    "PlanMemo",
    "PlanMemos",
    "Purged",
    "RecordWrite",
    "RecordedResource",
    "RecordsWritten",
    "Released",
    "RetryRequest",
    "Settled",
    "ShardKeeper",
    "StackRef",
    "StackState",
    "StackStatus",
    "StaleLease",
    "StateError",
    "Store",
    "UnchangedGeneration",
    "WorkStatus",
    "WorkerIdentity",
    "open_store",
    "shard_for",
    "upgrade",
]
