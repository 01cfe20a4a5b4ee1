"""Change counters of agents' metadata, so each daemon of a fleet can answer polls from memory.

A daemon keeps the version of every server's metadata its agents poll in memory and answers a
poll that holds it (304) without reading the database. What tells it an entry went stale, also
when another daemon of the fleet made the change, is this table: one counter per slot of servers,
moved in the same transaction as every change of a server's metadata or of its tokens, and read
by each daemon a few times a second (64 short rows) instead of once per poll.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "agent_changes",
        sa.Column("slot", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("counter", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("agent_changes")
