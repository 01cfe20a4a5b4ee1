"""The parsed blocks of templates, one row per slot holding its blocks as one opaque value.

A slot's row is written whole (an upsert), so a reader sees one writer's blocks or another's, never
a mix; what the bytes mean is the caller's.
"""

from __future__ import annotations

import sqlalchemy as sa

from state.models import TEMPLATE_BLOCKS
from state.transactions import Transactor
from state.upserts import dialect_insert


def read_blocks(connection: sa.Connection, slot: str) -> bytes | None:
    """The bytes kept in `slot`, if any."""
    found = connection.execute(
        sa.select(TEMPLATE_BLOCKS.c.content).where(TEMPLATE_BLOCKS.c.slot == slot)
    ).scalar_one_or_none()
    return bytes(found) if found is not None else None


def keep_blocks(connection: sa.Connection, slot: str, content: bytes) -> None:
    """Make `content` what `slot` holds."""
    insert = dialect_insert(connection, TEMPLATE_BLOCKS).values(slot=slot, content=content)
    connection.execute(
        insert.on_conflict_do_update(index_elements=["slot"], set_={"content": insert.excluded.content})
    )


class TemplateBlocksStore:
    """Templates' parsed blocks on this database, one whole value per slot."""

    def __init__(self, transactor: Transactor) -> None:
        self._tx = transactor

    def read(self, slot: str) -> bytes | None:
        """The bytes kept in `slot`, if any."""
        return self._tx.read("read template blocks", lambda c: read_blocks(c, slot))

    def keep(self, slot: str, content: bytes) -> None:
        """Make `content` what `slot` holds."""
        self._tx.run("keep template blocks", lambda c: keep_blocks(c, slot, content))
