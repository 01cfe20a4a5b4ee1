"""Records stamps and plan memos: a stack's records carry a stamp that every write of them changes,
and a stack keeps one memo of its last plan, made at a stamp.

The stamp is a fresh random token, not a counter: a stack deleted and made again under the same
name never comes back to a stamp an old memo was made at. What a memo's bytes mean is the caller's.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Sequence
from typing import NamedTuple

import sqlalchemy as sa

from state.models import PLAN_MEMOS, RESOURCE_RECORDS, STACKS
from state.transactions import Transactor
from state.upserts import dialect_insert

STAMPED_PER_STATEMENT = 500


def fresh_stamp() -> str:
    return secrets.token_hex(16)


def stamp_stacks(connection: sa.Connection, stacks: Collection[str]) -> None:
    """Give the records of `stacks` a new stamp (in the transaction writing them)."""
    names = sorted(stacks)
    stamp = fresh_stamp()
    for start in range(0, len(names), STAMPED_PER_STATEMENT):
        chunk = names[start : start + STAMPED_PER_STATEMENT]
        connection.execute(sa.update(STACKS).where(STACKS.c.name.in_(chunk)).values(records_stamp=stamp))


def stamp_stacks_of_records(connection: sa.Connection, record_ids: Sequence[int]) -> None:
    """Give a new stamp to the stacks holding the records `record_ids` (before they are deleted)."""
    stamp = fresh_stamp()
    for start in range(0, len(record_ids), STAMPED_PER_STATEMENT):
        chunk = record_ids[start : start + STAMPED_PER_STATEMENT]
        holding = sa.select(RESOURCE_RECORDS.c.stack).where(RESOURCE_RECORDS.c.id.in_(chunk))
        connection.execute(sa.update(STACKS).where(STACKS.c.name.in_(holding)).values(records_stamp=stamp))


class PlanMemo(NamedTuple):
    """A stack's memo and the stamp its records are at now (None: no stamp, so no memo holds)."""

    stamp: str | None
    content: bytes | None  # None: no memo made at that stamp


def read_memo(connection: sa.Connection, stack: str) -> PlanMemo:
    query = (
        sa.select(STACKS.c.records_stamp, PLAN_MEMOS.c.records_stamp, PLAN_MEMOS.c.content)
        .select_from(STACKS.outerjoin(PLAN_MEMOS, PLAN_MEMOS.c.stack == STACKS.c.name))
        .where(STACKS.c.name == stack)
    )
    row = connection.execute(query).first()
    if row is None or row[0] is None:
        return PlanMemo(None, None)
    stamp, made_at, content = row
    return PlanMemo(stamp, bytes(content) if made_at == stamp and content is not None else None)


def keep_memo(connection: sa.Connection, stack: str, stamp: str, content: bytes) -> None:
    """Keep `content` as the memo of `stack` made at `stamp`, unless its records moved on since."""
    current = connection.execute(sa.select(STACKS.c.records_stamp).where(STACKS.c.name == stack)).scalar()
    if current != stamp:
        return
    insert = dialect_insert(connection, PLAN_MEMOS).values(stack=stack, records_stamp=stamp, content=content)
    connection.execute(
        insert.on_conflict_do_update(
            index_elements=["stack"],
            set_={"records_stamp": insert.excluded.records_stamp, "content": insert.excluded.content},
        )
    )


class PlanMemos:
    """Plan memos on this database."""

    def __init__(self, transactor: Transactor) -> None:
        self._tx = transactor

    def read(self, stack: str) -> PlanMemo:
        """The stamp `stack`'s records are at, and the memo made at it if one was."""
        return self._tx.read("read plan memo", lambda c: read_memo(c, stack))

    def keep(self, stack: str, stamp: str, content: bytes) -> None:
        """Keep the memo of a plan made over `stack`'s records at `stamp` (dropped if they moved on)."""
        self._tx.run("keep plan memo", lambda c: keep_memo(c, stack, stamp, content))
