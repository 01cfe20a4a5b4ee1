"""What one pass over a stack learned, as a value: the writes the engine makes for it in one batch.

Like Flux's reconcilers, which summarise a pass and patch status once, a stack's coordinator
collects what changed and hands it over whole; the engine writes the records, statuses and outputs
of every stack it acted on in one transaction, each shard's part under its fence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.engine.desired import DesiredStack
from reconciler.engine.resource_state import ResourceState
from reconciler.engine.run_spec import RunSpec
from reconciler.engine.stack_status import AT_REST, StackStatus


@dataclass(frozen=True, slots=True)
class StatusWrite:
    """A stack's status to record at a generation, with the reasons a person needs."""

    status: StackStatus
    reasons: tuple[str, ...]
    generation: int


@dataclass(frozen=True, slots=True)
class SubmitChild:
    """Make (or move on) the nested stack `child` of `resource`; answered with the child's generation."""

    resource: str
    child: str
    commit: str
    definition: DesiredStack
    spec: RunSpec


@dataclass(frozen=True, slots=True)
class RemoveChild:
    """Converge the nested stack `child` to nothing; answered once it holds no resources any more.

    `retain`: its resource's policy is `Retain`, so what the child holds stays in the cloud."""

    child: str
    retain: bool = False


ChildRequest = SubmitChild | RemoveChild


@dataclass(frozen=True, slots=True)
class PassResult:
    """The writes of one pass: records to upsert and delete, status, outputs, superseded generations.

    `upserts` are the coordinator's own record objects: the engine sets the record ids the store
    assigns on them. `outputs` is None when unchanged (or not known yet), `status` when unchanged.
    `child_requests` are what the stack asks of the engine for its nested stacks, answered by the
    engine straight after the pass (a coordinator never calls up into the engine).
    """

    upserts: tuple[ResourceState, ...] = ()
    deleted_record_ids: tuple[int, ...] = ()
    status: StatusWrite | None = None
    outputs: Mapping[str, Any] | None = None
    superseded_generations: tuple[int, ...] = ()
    child_requests: tuple[ChildRequest, ...] = ()

    @property
    def writes_records(self) -> bool:
        return bool(self.upserts or self.deleted_record_ids)

    @property
    def converged_again(self) -> bool:
        """A new status of CONVERGED (or SUSPENDED): a nested stack's parent reads its values anew."""
        return self.status is not None and self.status.status in AT_REST

    def then(self, later: PassResult) -> PassResult:
        """This pass's result followed by a later one's in the same engine pass (merged, later wins).

        Only the later child requests are kept: the engine answered the earlier ones already.
        """
        upserts = {id(state): state for state in self.upserts}
        upserts.update((id(state), state) for state in later.upserts)
        return PassResult(
            tuple(upserts.values()),
            self.deleted_record_ids + later.deleted_record_ids,
            later.status or self.status,
            later.outputs if later.outputs is not None else self.outputs,
            tuple(dict.fromkeys(self.superseded_generations + later.superseded_generations)),
            later.child_requests,
        )
