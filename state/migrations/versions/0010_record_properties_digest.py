"""A resource record keeps the digest of the properties it was applied with.

A plan compares each desired resource's digest with the recorded one and reads the applied
properties only where the two differ. Existing records have none (NULL): they are compared by their
properties, as before, until they are written again.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("resource_records") as table:
        table.add_column(sa.Column("properties_digest", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("resource_records") as table:
        table.drop_column("properties_digest")
