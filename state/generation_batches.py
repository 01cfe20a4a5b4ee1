"""Generations of many stacks recorded at once: a group's members asked for in one parent pass.

`stacks.record_generation` for each of a thousand nested stacks is a thousand transactions of
four statements. Here the rows of every stack asked for are made in one statement, their newest
generations read in one, and the new ones inserted in one, with the same rule per stack: a new
generation only when the definition digest differs from the newest one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from state.models import STACK_GENERATIONS as GENERATIONS
from state.models import STACKS
from state.sharding import shard_for
from state.stacks import (
    GENERATION_COLUMNS,
    Generation,
    GenerationOutcome,
    NewGeneration,
    StackRef,
    StackStatus,
    UnchangedGeneration,
)
from state.upserts import dialect_insert, rows_per_statement


@dataclass(frozen=True, slots=True)
class GenerationAsked:
    """A desired state of `stack` to record unless its newest generation has the same digest."""

    stack: str
    commit_sha: str
    definition_digest: str
    inputs: dict[str, Any]


@dataclass(frozen=True, slots=True)
class GenerationRecorded:
    """The stack (with its shard) and what recording its generation did."""

    stack: StackRef
    outcome: GenerationOutcome


def record_generations(
    connection: sa.Connection, asked: Sequence[GenerationAsked], *, shard_count: int, now: float
) -> list[GenerationRecorded]:
    """Record each generation asked for, in order; a stack asked for twice gets the later one after
    the earlier, as two calls of `stacks.record_generation` would."""
    recorded: list[GenerationRecorded] = []
    for part in _without_repeats(asked):
        recorded.extend(_record_distinct(connection, part, shard_count=shard_count, now=now))
    return recorded


def _without_repeats(asked: Sequence[GenerationAsked]) -> list[list[GenerationAsked]]:
    """`asked` cut into consecutive parts in which no stack appears twice."""
    parts: list[list[GenerationAsked]] = [[]]
    names: set[str] = set()
    for generation in asked:
        if generation.stack in names:
            parts.append([])
            names = set()
        parts[-1].append(generation)
        names.add(generation.stack)
    return [part for part in parts if part]


def _record_distinct(
    connection: sa.Connection, asked: list[GenerationAsked], *, shard_count: int, now: float
) -> list[GenerationRecorded]:
    names = sorted(generation.stack for generation in asked)
    shards = _ensure_stacks(connection, names, shard_count=shard_count, now=now)
    if connection.dialect.name == "postgresql":  # serialize concurrent recorders of one stack
        _lock_rows(connection, names)
    newest = _newest_generations(connection, names)
    recorded: list[GenerationRecorded] = []
    fresh: list[Generation] = []
    for generation in asked:
        before = newest.get(generation.stack)
        ref = StackRef(generation.stack, shards[generation.stack])
        if before is not None and before.definition_digest == generation.definition_digest:
            recorded.append(GenerationRecorded(ref, UnchangedGeneration(before)))
            continue
        made = Generation(
            stack=generation.stack,
            generation=1 if before is None else before.generation + 1,
            commit_sha=generation.commit_sha,
            definition_digest=generation.definition_digest,
            inputs=generation.inputs,
            created_at=now,
        )
        fresh.append(made)
        recorded.append(GenerationRecorded(ref, NewGeneration(made)))
    _insert_generations(connection, fresh)
    return recorded


def _ensure_stacks(
    connection: sa.Connection, names: list[str], *, shard_count: int, now: float
) -> dict[str, int]:
    """Each named stack's shard, its row made PENDING first where it had none."""
    shards = _shards_of(connection, names)
    missing = [name for name in names if name not in shards]
    if missing:
        rows = [
            {
                "name": name,
                "shard": shard_for(name, shard_count),
                "status": StackStatus.PENDING.value,
                "status_reasons": [],
                "outputs": {},
                "updated_at": now,
            }
            for name in missing
        ]
        chunk = rows_per_statement(connection, len(rows[0]))
        for start in range(0, len(rows), chunk):
            insert = dialect_insert(connection, STACKS).values(rows[start : start + chunk])
            connection.execute(insert.on_conflict_do_nothing(index_elements=["name"]))
        shards.update(_shards_of(connection, missing))
    return shards


_IN_CHUNK = 500


def _shards_of(connection: sa.Connection, names: list[str]) -> dict[str, int]:
    shards: dict[str, int] = {}
    for start in range(0, len(names), _IN_CHUNK):
        chunk = names[start : start + _IN_CHUNK]
        rows = connection.execute(sa.select(STACKS.c.name, STACKS.c.shard).where(STACKS.c.name.in_(chunk)))
        shards.update((name, shard) for name, shard in rows)
    return shards


def _lock_rows(connection: sa.Connection, names: list[str]) -> None:
    for start in range(0, len(names), _IN_CHUNK):
        chunk = names[start : start + _IN_CHUNK]
        connection.execute(
            sa.select(STACKS.c.name).where(STACKS.c.name.in_(chunk)).order_by(STACKS.c.name).with_for_update()
        )


def _newest_generations(connection: sa.Connection, names: list[str]) -> dict[str, Generation]:
    newest: dict[str, Generation] = {}
    for start in range(0, len(names), _IN_CHUNK):
        chunk = names[start : start + _IN_CHUNK]
        highest = (
            sa.select(GENERATIONS.c.stack, sa.func.max(GENERATIONS.c.generation).label("generation"))
            .where(GENERATIONS.c.stack.in_(chunk))
            .group_by(GENERATIONS.c.stack)
            .subquery()
        )
        rows = connection.execute(
            sa.select(*GENERATION_COLUMNS).join(
                highest,
                sa.and_(
                    GENERATIONS.c.stack == highest.c.stack, GENERATIONS.c.generation == highest.c.generation
                ),
            )
        )
        newest.update((row.stack, Generation(*row)) for row in rows)
    return newest


def _insert_generations(connection: sa.Connection, generations: list[Generation]) -> None:
    if not generations:
        return
    rows = [generation.__dict__ for generation in generations]
    chunk = rows_per_statement(connection, len(rows[0]))
    for start in range(0, len(rows), chunk):
        connection.execute(sa.insert(GENERATIONS).values(rows[start : start + chunk]))
