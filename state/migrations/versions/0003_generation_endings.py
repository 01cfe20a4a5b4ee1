"""A generation records how it ended when a newer one took over before it settled (SUPERSEDED).

The stack's own status row describes only its newest generation; a commit that was still
PROGRESSING when the next one arrived ended SUPERSEDED (DESIGN.md section 4.9), and
`stack_generations.ended_status` keeps that, so the store answers for every commit. NULL for the
newest generation and for one that settled (CONVERGED, FAILED) before the next arrived.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("stack_generations") as table:
        table.add_column(sa.Column("ended_status", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("stack_generations") as table:
        table.drop_column("ended_status")
