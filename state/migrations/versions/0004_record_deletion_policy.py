"""A resource record keeps the deletion policy its resource was last converged with.

Heat decides what removing a resource does from the policy it had in the template it was created or
updated from, not from the template that no longer names it; a daemon that starts after the commit
removing a resource only has the record to go by. Existing records had no policy: `Delete`.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("resource_records") as table:
        table.add_column(
            sa.Column("deletion_policy", sa.String(16), nullable=False, server_default="Delete")
        )


def downgrade() -> None:
    with op.batch_alter_table("resource_records") as table:
        table.drop_column("deletion_policy")
