"""Stacks, their generations (one per change of inputs), their status and their outputs."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from state.models import RESOURCE_RECORDS, STACKS
from state.models import STACK_GENERATIONS as GENERATIONS
from state.sharding import shard_for
from state.upserts import dialect_insert


class StackStatus(enum.StrEnum):
    """The status vocabulary of DESIGN.md section 4."""

    PENDING = "PENDING"
    PROGRESSING = "PROGRESSING"
    CONVERGED = "CONVERGED"
    DEGRADED = "DEGRADED"
    FAILED = "FAILED"
    SUPERSEDED = "SUPERSEDED"
    INVALID = "INVALID"
    PENDING_APPROVAL = "PENDING_APPROVAL"  # destructive actions wait for `reconciler approve`
    SUSPENDED = "SUSPENDED"  # converged, its servers suspended as `state: suspended` declares
    ABANDONED = "ABANDONED"  # no longer managed (`reconciler abandon`): its resources left in the cloud


@dataclass(frozen=True)
class StackRef:
    """A stack known to the store and the shard it lives on."""

    name: str
    shard: int


@dataclass(frozen=True)
class Generation:
    """One desired state of a stack."""

    stack: str
    generation: int
    commit_sha: str
    definition_digest: str
    inputs: dict[str, Any]
    created_at: float


@dataclass(frozen=True)
class GenerationSeen:
    """A generation as a worker discovers it on its shards; `id` orders generations store-wide."""

    id: int
    stack: str
    shard: int
    generation: int
    commit_sha: str
    definition_digest: str
    inputs: dict[str, Any]


@dataclass(frozen=True)
class NewGeneration:
    """The digest changed: a new generation was recorded."""

    generation: Generation


@dataclass(frozen=True)
class UnchangedGeneration:
    """The digest equals the newest generation's: nothing was recorded."""

    generation: Generation


@dataclass(frozen=True)
class NewerGeneration:
    """A generation newer than the one the caller decided from is there: nothing was recorded."""

    generation: Generation


GenerationOutcome = NewGeneration | UnchangedGeneration | NewerGeneration


@dataclass(frozen=True)
class StackState:
    """A stack's row: shard, status with reasons and the generation it refers to, outputs."""

    name: str
    shard: int
    status: StackStatus
    reasons: tuple[str, ...]
    status_generation: int | None
    outputs: dict[str, Any]
    updated_at: float
    commit: str | None = None  # the commit of the generation its status refers to


def ensure_stack(connection: sa.Connection, name: str, *, shard_count: int, now: float) -> StackRef:
    """The stack's row, created PENDING on the shard its name hashes to if it does not exist."""
    shard = connection.execute(sa.select(STACKS.c.shard).where(STACKS.c.name == name)).scalar_one_or_none()
    if shard is not None:
        return StackRef(name, shard)
    shard = shard_for(name, shard_count)
    connection.execute(
        dialect_insert(connection, STACKS)
        .values(
            name=name,
            shard=shard,
            status=StackStatus.PENDING.value,
            status_reasons=[],
            outputs={},
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=["name"])
    )
    stored = connection.execute(sa.select(STACKS.c.shard).where(STACKS.c.name == name)).scalar_one()
    return StackRef(name, stored)


# a `Generation`'s fields, in its order
GENERATION_COLUMNS = (
    GENERATIONS.c.stack,
    GENERATIONS.c.generation,
    GENERATIONS.c.commit_sha,
    GENERATIONS.c.definition_digest,
    GENERATIONS.c.inputs,
    GENERATIONS.c.created_at,
)


def newest_generation(connection: sa.Connection, stack: str) -> Generation | None:
    """The stack's newest generation, or None before its first."""
    row = connection.execute(
        sa.select(*GENERATION_COLUMNS)
        .where(GENERATIONS.c.stack == stack)
        .order_by(GENERATIONS.c.generation.desc())
        .limit(1)
    ).first()
    return None if row is None else Generation(*row)


def newest_digests_under(connection: sa.Connection, stack: str) -> dict[str, str]:
    """The definition digest of the newest generation of every stack nested under `stack`."""
    nested = GENERATIONS.c.stack.startswith(f"{stack}/", autoescape=True)
    newest = (
        sa.select(GENERATIONS.c.stack, sa.func.max(GENERATIONS.c.generation).label("generation"))
        .where(nested)
        .group_by(GENERATIONS.c.stack)
        .subquery()
    )
    joined = sa.and_(GENERATIONS.c.stack == newest.c.stack, GENERATIONS.c.generation == newest.c.generation)
    rows = connection.execute(
        sa.select(GENERATIONS.c.stack, GENERATIONS.c.definition_digest).join(newest, joined)
    )
    return {row.stack: row.definition_digest for row in rows}


def record_generation(
    connection: sa.Connection,
    stack: str,
    *,
    commit_sha: str,
    definition_digest: str,
    inputs: dict[str, Any],
    now: float,
    after: int | None = None,
) -> GenerationOutcome:
    """Record a new generation only when the definition digest differs from the newest one, and,
    with `after`, only while the newest is still generation `after` (else `NewerGeneration`)."""
    if connection.dialect.name == "postgresql":  # serialize concurrent recorders of one stack
        connection.execute(sa.select(STACKS.c.name).where(STACKS.c.name == stack).with_for_update())
    newest = newest_generation(connection, stack)
    if newest is not None and after is not None and newest.generation != after:
        return NewerGeneration(newest)
    if newest is not None and newest.definition_digest == definition_digest:
        return UnchangedGeneration(newest)
    generation = Generation(
        stack=stack,
        generation=1 if newest is None else newest.generation + 1,
        commit_sha=commit_sha,
        definition_digest=definition_digest,
        inputs=inputs,
        created_at=now,
    )
    connection.execute(sa.insert(GENERATIONS).values(**generation.__dict__))
    return NewGeneration(generation)


def set_status(
    connection: sa.Connection,
    stack: str,
    status: StackStatus,
    *,
    reasons: tuple[str, ...] | list[str],
    generation: int | None,
    now: float,
    commit: str | None = None,
) -> None:
    """Set a stack's status with its reasons, the generation it describes and the commit it is at."""
    connection.execute(
        sa.update(STACKS)
        .where(STACKS.c.name == stack)
        .values(
            status=status.value,
            status_reasons=list(reasons),
            status_generation=generation,
            status_commit=commit,
            updated_at=now,
        )
    )


def store_outputs(connection: sa.Connection, stack: str, outputs: dict[str, Any], *, now: float) -> None:
    """Replace a stack's outputs (name -> value)."""
    connection.execute(
        sa.update(STACKS).where(STACKS.c.name == stack).values(outputs=outputs, updated_at=now)
    )


def read_stack(connection: sa.Connection, stack: str) -> StackState | None:
    """A stack's row, or None when the store does not know the stack."""
    return read_stacks(connection, [stack]).get(stack)


def stacks_on_shards(connection: sa.Connection, shards: list[int]) -> list[StackRef]:
    """The stacks living on the given shards, by name."""
    rows = connection.execute(
        sa.select(STACKS.c.name, STACKS.c.shard).where(STACKS.c.shard.in_(shards)).order_by(STACKS.c.name)
    )
    return [StackRef(name, shard) for name, shard in rows]


def stacks_holding_records(connection: sa.Connection, shards: list[int]) -> list[str]:
    """The top-level stacks (names without "/") on `shards` that still hold resource records."""
    holding = sa.exists().where(RESOURCE_RECORDS.c.stack == STACKS.c.name)
    rows = connection.execute(
        sa.select(STACKS.c.name)
        .where(STACKS.c.shard.in_(shards), ~STACKS.c.name.contains("/"), holding)
        .order_by(STACKS.c.name)
    )
    return [name for (name,) in rows]


def read_stacks(connection: sa.Connection, names: list[str]) -> dict[str, StackState]:
    """The rows of the named stacks that exist, by name, each with the commit its status is at (the
    one written with it, else its generation's), in one query per 500 names."""
    found: dict[str, StackState] = {}
    at_status = sa.and_(
        GENERATIONS.c.stack == STACKS.c.name, GENERATIONS.c.generation == STACKS.c.status_generation
    )
    for start in range(0, len(names), _IN_CHUNK):
        rows = connection.execute(
            sa.select(
                STACKS.c.name,
                STACKS.c.shard,
                STACKS.c.status,
                STACKS.c.status_reasons,
                STACKS.c.status_generation,
                STACKS.c.outputs,
                STACKS.c.updated_at,
                sa.func.coalesce(STACKS.c.status_commit, GENERATIONS.c.commit_sha),
            )
            .select_from(STACKS.outerjoin(GENERATIONS, at_status))
            .where(STACKS.c.name.in_(names[start : start + _IN_CHUNK]))
        )
        for name, shard, status, reasons, generation, outputs, updated_at, commit in rows:
            found[name] = StackState(
                name, shard, StackStatus(status), tuple(reasons), generation, outputs, updated_at, commit
            )
    return found


_IN_CHUNK = 500


def generations_since(
    connection: sa.Connection, shards: list[int], after_id: int, up_to: int
) -> list[GenerationSeen]:
    """Generations with `after_id < id <= up_to` of the stacks on `shards`, oldest first."""
    if not shards:
        return []
    rows = connection.execute(
        sa.select(
            GENERATIONS.c.id,
            GENERATIONS.c.stack,
            STACKS.c.shard,
            GENERATIONS.c.generation,
            GENERATIONS.c.commit_sha,
            GENERATIONS.c.definition_digest,
            GENERATIONS.c.inputs,
        )
        .join(STACKS, STACKS.c.name == GENERATIONS.c.stack)
        .where(GENERATIONS.c.id > after_id, GENERATIONS.c.id <= up_to, STACKS.c.shard.in_(shards))
        .order_by(GENERATIONS.c.id)
    )
    return [GenerationSeen(*row) for row in rows]


def newest_generation_id(connection: sa.Connection) -> int:
    """The highest generation id in the store (0 when there is none)."""
    return int(connection.execute(sa.select(sa.func.max(GENERATIONS.c.id))).scalar_one_or_none() or 0)


def end_generations(
    connection: sa.Connection, stack: str, generations: list[int], status: StackStatus
) -> None:
    """Record that `generations` of `stack` ended in `status` (a generation ends once: first wins)."""
    connection.execute(
        sa.update(GENERATIONS)
        .where(
            GENERATIONS.c.stack == stack,
            GENERATIONS.c.generation.in_(generations),
            GENERATIONS.c.ended_status.is_(None),
        )
        .values(ended_status=status.value)
    )


def generation_endings(connection: sa.Connection, stack: str) -> dict[int, StackStatus]:
    """generation -> how it ended, for the generations of `stack` that ended (e.g. SUPERSEDED)."""
    rows = connection.execute(
        sa.select(GENERATIONS.c.generation, GENERATIONS.c.ended_status).where(
            GENERATIONS.c.stack == stack, GENERATIONS.c.ended_status.is_not(None)
        )
    )
    return {generation: StackStatus(ended) for generation, ended in rows}
