"""Initial schema: workers, shard leases, stacks and generations, resource records, work items, notes outbox.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")
ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME: sa.Double[float] = sa.Double()


def upgrade() -> None:
    op.create_table(
        "workers",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("started_at", TIME, nullable=False),
        sa.Column("heartbeat_at", TIME, nullable=False),
    )
    op.create_index("ix_workers_heartbeat_at", "workers", ["heartbeat_at"])

    op.create_table(
        "shard_leases",
        sa.Column("shard", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("owner", sa.String(128), nullable=True),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
    )
    op.create_index("ix_shard_leases_owner", "shard_leases", ["owner"])

    op.create_table(
        "stacks",
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("shard", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("status_reasons", JSON, nullable=False),
        sa.Column("status_generation", sa.Integer, nullable=True),
        sa.Column("outputs", JSON, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )
    op.create_index("ix_stacks_shard", "stacks", ["shard"])

    op.create_table(
        "stack_generations",
        sa.Column("id", ROW_ID, primary_key=True, autoincrement=True),
        sa.Column("stack", sa.String(255), sa.ForeignKey("stacks.name", ondelete="CASCADE"), nullable=False),
        sa.Column("generation", sa.Integer, nullable=False),
        sa.Column("commit_sha", sa.String(64), nullable=False),
        sa.Column("definition_digest", sa.String(128), nullable=False),
        sa.Column("inputs", JSON, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.UniqueConstraint("stack", "generation", name="uq_stack_generations_stack_generation"),
    )

    op.create_table(
        "resource_records",
        sa.Column("id", ROW_ID, primary_key=True, autoincrement=True),
        sa.Column("stack", sa.String(255), sa.ForeignKey("stacks.name", ondelete="CASCADE"), nullable=False),
        sa.Column("logical_name", sa.String(255), nullable=False),
        sa.Column("type", sa.String(255), nullable=False),
        sa.Column("physical_id", sa.String(255), nullable=True),
        sa.Column("properties", JSON, nullable=False),
        sa.Column("attributes", JSON, nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("generation", sa.Integer, nullable=False),
        sa.Column("replaced_by", ROW_ID, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", TIME, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("updated_at", TIME, nullable=False),
    )
    op.create_index("ix_resource_records_stack", "resource_records", ["stack"])
    op.create_index("ix_resource_records_next_attempt", "resource_records", ["next_attempt_at"])

    op.create_table(
        "work_items",
        sa.Column("id", ROW_ID, primary_key=True, autoincrement=True),
        sa.Column("shard", sa.Integer, nullable=False),
        sa.Column("stack", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("claimed_by", sa.String(128), nullable=True),
        sa.Column("claimed_at", TIME, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", TIME, nullable=False),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("completed_at", TIME, nullable=True),
    )
    op.create_index("ix_work_items_ready", "work_items", ["status", "next_attempt_at"])
    op.create_index("ix_work_items_claimed_by", "work_items", ["claimed_by"])

    op.create_table(
        "notes_outbox",
        sa.Column("id", ROW_ID, primary_key=True, autoincrement=True),
        sa.Column("commit_sha", sa.String(64), nullable=False),
        sa.Column("notes_ref", sa.String(255), nullable=False),
        sa.Column("stack", sa.String(255), nullable=False),
        sa.Column("line", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("sent_at", TIME, nullable=True),
    )
    op.create_index("ix_notes_outbox_pending", "notes_outbox", ["sent_at", "id"])


def downgrade() -> None:
    for table in ("notes_outbox", "work_items", "resource_records", "stack_generations", "stacks"):
        op.drop_table(table)
    op.drop_table("shard_leases")
    op.drop_table("workers")
