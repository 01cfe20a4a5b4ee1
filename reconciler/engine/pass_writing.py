"""A pass's results gathered per shard for the store's one transaction, and its answer taken back.

The coordinators' results name records, statuses, outputs and superseded generations stack by
stack; the store takes them shard by shard (`ShardWrites`, each under its shard's fence) and hands
back the ids of new records, which are set on the coordinators' own record objects.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from reconciler.engine.pass_result import PassResult
from reconciler.engine.record_rows import plan_fields, write_for
from reconciler.engine.resource_state import ResourceState
from reconciler.engine.stack_run import StackRun
from reconciler.engine.stack_status import StackStatus
from state.fencing import Fence
from state.pass_writes import EndedGenerations, PassWritten, ShardWrites
from state.stack_row_batches import StackOutputsWrite, StackStatusWrite


@dataclass
class GatheredPass:
    """The writes of one pass by shard, and the record objects whose upserts they carry."""

    writes: dict[int, ShardWrites] = field(default_factory=dict)
    states: dict[int, list[ResourceState]] = field(default_factory=dict)

    def of_shard(self, fence: Fence) -> ShardWrites:
        shard = self.writes.get(fence.shard)
        if shard is None:
            shard = self.writes[fence.shard] = ShardWrites(fence)
            self.states[fence.shard] = []
        return shard

    def taken_back(self, written: PassWritten) -> list[tuple[str, int]]:
        """Record ids set on the states written; the (stack, generation) ended in the store."""
        for shard, record_ids in written.record_ids.items():
            writes = self.writes[shard]
            for state, write, record_id in zip(self.states[shard], writes.upserts, record_ids, strict=True):
                state.record_id = record_id
                state.recorded_replaced_by = write.replaced_by
                state.stored_plan_fields = plan_fields(write)
        return [
            (ended.stack, generation)
            for shard in written.record_ids
            for ended in self.writes[shard].ended
            for generation in ended.generations
        ]


def gather_pass(
    runs: Sequence[StackRun],
    results: Mapping[str, PassResult],
    held: Mapping[int, int],
    *,
    reports_status: Callable[[str], bool],
    ended: Collection[tuple[str, int]],
) -> GatheredPass:
    """Every run's records; the status, outputs and newly superseded generations of those runs
    `reports_status` (a run removed meanwhile writes its records only)."""
    gathered = GatheredPass()
    for run in runs:
        result = results[run.name]
        reporting = reports_status(run.name) and (result.status is not None or result.outputs is not None)
        if not (result.writes_records or reporting):
            continue
        shard = gathered.of_shard(Fence(run.shard, held[run.shard]))
        shard.upserts.extend(write_for(run.name, state) for state in result.upserts)
        gathered.states[run.shard].extend(result.upserts)
        shard.deletes.extend(result.deleted_record_ids)
        if reporting:
            _gather_status(shard, run, result, ended)
    return gathered


def _gather_status(
    shard: ShardWrites, run: StackRun, result: PassResult, ended: Collection[tuple[str, int]]
) -> None:
    if result.outputs is not None:
        shard.outputs.append(StackOutputsWrite(run.name, dict(result.outputs)))
    status = result.status
    if status is None:
        return
    superseded = tuple(number for number in result.superseded_generations if (run.name, number) not in ended)
    if superseded:
        shard.ended.append(EndedGenerations(run.name, superseded, StackStatus.SUPERSEDED))
    shard.statuses.append(
        StackStatusWrite(run.name, status.status, tuple(status.reasons), status.generation, run.commit)
    )
