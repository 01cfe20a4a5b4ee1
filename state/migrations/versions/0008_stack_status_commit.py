"""The commit a stack's status refers to, on the stack's row; resource records indexed by stack
and status.

A commit that leaves a stack's definition as it was records no new generation, yet the stack is
converged at that commit (its note says so); status read from the database by any worker of a
fleet names the same commit as the note when the row carries it.

`/metrics` counts the resources of the stacks a worker runs by status at every scrape: an index on
(stack, status) answers that from the index alone, and serves every read by stack the index on
stack served, so it replaces it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("stacks") as batch:
        batch.add_column(sa.Column("status_commit", sa.String(64), nullable=True))
    op.create_index("ix_resource_records_stack_status", "resource_records", ["stack", "status"])
    op.drop_index("ix_resource_records_stack", table_name="resource_records")


def downgrade() -> None:
    op.create_index("ix_resource_records_stack", "resource_records", ["stack"])
    op.drop_index("ix_resource_records_stack_status", table_name="resource_records")
    with op.batch_alter_table("stacks") as batch:
        batch.drop_column("status_commit")
