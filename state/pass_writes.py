"""One engine pass's writes, for every shard it acted on, in one transaction.

What a pass learned: per shard, the records to upsert and delete, and the statuses, outputs and
superseded generations of its stacks. A pass over a tree of a thousand nested stacks acts on
stacks of every shard; written one shard's records and one stack's status at a time, that is
thousands of transactions. Here the fences of every shard are checked in one query and each kind
of row goes out in a few multi-row statements.

Fencing stays per shard: a shard whose epoch is stale is left out whole (records, statuses,
outputs), named in the result, and the other shards are written; the current shards' lease rows
are share-locked on PostgreSQL first, so no takeover slips in before the commit. The transaction
commits all of the pass or none of it: a crash loses at most the pass, as a crash between two of
the separate transactions did, and nothing is ever half-written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import sqlalchemy as sa

from state import stack_row_batches, stacks
from state.fencing import Fence, stale_fences
from state.records import RecordWrite, apply_record_writes
from state.sealing import Sealer
from state.stack_row_batches import StackOutputsWrite, StackStatusWrite
from state.stacks import StackStatus


@dataclass(frozen=True, slots=True)
class EndedGenerations:
    """Generations of `stack` that ended before settling, and how (SUPERSEDED)."""

    stack: str
    generations: tuple[int, ...]
    status: StackStatus


@dataclass(slots=True)
class ShardWrites:
    """Everything a pass writes under one shard's fence; every stack named lives on that shard."""

    fence: Fence
    upserts: list[RecordWrite] = field(default_factory=list)
    deletes: list[int] = field(default_factory=list)
    outputs: list[StackOutputsWrite] = field(default_factory=list)
    statuses: list[StackStatusWrite] = field(default_factory=list)
    ended: list[EndedGenerations] = field(default_factory=list)


@dataclass(frozen=True)
class PassWritten:
    """Per shard written, the record ids of its upserts in the order given; the fences found stale."""

    record_ids: dict[int, tuple[int, ...]]
    stale: tuple[Fence, ...]


def write_pass(
    connection: sa.Connection, writes: Sequence[ShardWrites], *, now: float, sealer: Sealer | None = None
) -> PassWritten:
    """Write every shard's writes whose fence is current; the stale ones are skipped and named."""
    stale = stale_fences(connection, [shard.fence for shard in writes], now=now)
    current = [shard for shard in writes if shard.fence not in stale]
    upserts = [write for shard in current for write in shard.upserts]
    deletes = [record_id for shard in current for record_id in shard.deletes]
    ids = iter(apply_record_writes(connection, upserts, deletes, now=now, sealer=sealer).record_ids)
    record_ids = {shard.fence.shard: tuple(next(ids) for _ in shard.upserts) for shard in current}
    outputs = [(shard.fence.shard, write) for shard in current for write in shard.outputs]
    stack_row_batches.store_outputs(connection, outputs, now=now)
    statuses = [(shard.fence.shard, write) for shard in current for write in shard.statuses]
    stack_row_batches.set_statuses(connection, statuses, now=now)
    for ended in (ended for shard in current for ended in shard.ended):
        stacks.end_generations(connection, ended.stack, list(ended.generations), ended.status)
    refused = tuple(shard.fence for shard in writes if shard.fence in stale)
    return PassWritten(record_ids=record_ids, stale=refused)
