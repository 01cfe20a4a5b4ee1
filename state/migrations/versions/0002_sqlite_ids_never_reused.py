"""SQLite: never reuse the id of a deleted record, work item or note (AUTOINCREMENT).

Record ids go into idempotency markers on cloud resources; a reused id could make a new record
adopt a leftover resource of a deleted one. SQLite's plain INTEGER PRIMARY KEY hands out the largest
id plus one, which repeats an id after the newest row is deleted; AUTOINCREMENT does not. SQLite
cannot alter a key in place, so the tables are rebuilt with their data (Alembic's batch mode).
PostgreSQL sequences never reuse values: nothing to do there.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("resource_records", "work_items", "notes_outbox")


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for table in TABLES:
        with op.batch_alter_table(table, recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}):
            pass


def upgrade() -> None:
    _rebuild(autoincrement=True)


def downgrade() -> None:
    _rebuild(autoincrement=False)
