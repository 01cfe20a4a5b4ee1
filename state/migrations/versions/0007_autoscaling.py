"""Autoscaling: scaling policy signals waiting for their shard's holder, and groups' runtime sizes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")
ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME: sa.Double[float] = sa.Double()


def upgrade() -> None:
    op.create_table(
        "scaling_signals",
        sa.Column("id", ROW_ID, primary_key=True, autoincrement=True),
        sa.Column("policy", sa.String(64), nullable=False),
        sa.Column("stack", sa.String(255), nullable=False),
        sa.Column("resource", sa.String(255), nullable=False),
        sa.Column("shard", sa.Integer, nullable=False),
        sa.Column("signal_key", sa.String(160), nullable=False),
        sa.Column("received_at", TIME, nullable=False),
        sa.Column("acted_at", TIME, nullable=True),
        sa.UniqueConstraint("policy", "signal_key", name="uq_scaling_signals_policy_key"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_scaling_signals_shard", "scaling_signals", ["shard"])
    op.create_table(
        "group_sizes",
        sa.Column("stack", sa.String(255), primary_key=True),
        sa.Column("resource", sa.String(255), primary_key=True),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("bounds", JSON, nullable=False),
        sa.Column("cooldown_end", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("group_sizes")
    op.drop_index("ix_scaling_signals_shard", table_name="scaling_signals")
    op.drop_table("scaling_signals")
