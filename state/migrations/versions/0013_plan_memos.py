"""A stack's records carry a stamp changed by every write of them, and a stack keeps a plan memo.

The memo holds what the last plan found settled at one stamp; a plan over records still at that
stamp decides only the resources its template changed. Existing stacks have no stamp (NULL) and no
memo: their next plan is a full one.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("stacks") as table:
        table.add_column(sa.Column("records_stamp", sa.String(32), nullable=True))
    op.create_table(
        "plan_memos",
        sa.Column(
            "stack",
            sa.String(255),
            sa.ForeignKey("stacks.name", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("records_stamp", sa.String(32), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("plan_memos")
    with op.batch_alter_table("stacks") as table:
        table.drop_column("records_stamp")
