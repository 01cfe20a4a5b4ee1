"""Retry requests: `reconciler retry` asks the holder of a stack's shard, wherever it runs.

The command and the daemon holding the stack may be on different hosts; the database they share
carries the request, and the holder's engine reads the requests of its shards on its passes.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "retry_requests",
        sa.Column("id", ROW_ID, primary_key=True, autoincrement=True),
        sa.Column("stack", sa.String(255), nullable=False),
        sa.Column("resource", sa.String(255), nullable=True),
        sa.Column("shard", sa.Integer, nullable=False),
        sa.Column("requested_at", sa.Double, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_retry_requests_shard", "retry_requests", ["shard"])


def downgrade() -> None:
    op.drop_index("ix_retry_requests_shard", table_name="retry_requests")
    op.drop_table("retry_requests")
