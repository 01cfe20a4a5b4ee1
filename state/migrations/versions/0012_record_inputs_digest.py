"""A resource record keeps the digest of what its applied properties were resolved from.

A plan whose digest of a resource's inputs (its definition, the stack's parameters and the ids it
requires) is the recorded one decides it unchanged without resolving it. Existing records have none
(NULL): they are resolved and compared, as before, until they are written again.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("resource_records") as table:
        table.add_column(sa.Column("inputs_digest", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("resource_records") as table:
        table.drop_column("inputs_digest")
