"""Software orchestration: configs and wait conditions, deployments, agent tokens and handle signals.

Signals and polls from VMs reach any daemon of a fleet, so what they read and write lives here.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")
ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME: sa.Double[float] = sa.Double()


def upgrade() -> None:
    op.create_table(
        "software_objects",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("stack", sa.String(255), nullable=False),
        sa.Column("body", JSON, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_table(
        "software_deployments",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("server_id", sa.String(255), nullable=False),
        sa.Column("group_id", sa.String(64), nullable=True),
        sa.Column("stack", sa.String(255), nullable=False),
        sa.Column("resource", sa.String(255), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("status_reason", sa.Text, nullable=False),
        sa.Column("config_hash", sa.String(64), nullable=False),
        sa.Column("entry", JSON, nullable=False),
        sa.Column("outputs", JSON, nullable=False),
        sa.Column("deadline", TIME, nullable=True),
        sa.Column("updated_at", TIME, nullable=False),
        sa.Column("actions", JSON, nullable=False),
        sa.Column("published", sa.Boolean, nullable=False),
    )
    op.create_index("ix_software_deployments_server_id", "software_deployments", ["server_id"])
    op.create_index("ix_software_deployments_group_id", "software_deployments", ["group_id"])
    op.create_table(
        "agent_servers",
        sa.Column("server_id", sa.String(255), primary_key=True),
        sa.Column("modified_at", TIME, nullable=False),
    )
    op.create_table(
        "agent_tokens",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(512), nullable=False),
        sa.Column("server_id", sa.String(255), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("ix_agent_tokens_subject", "agent_tokens", ["subject"])
    op.create_index("ix_agent_tokens_server_id", "agent_tokens", ["server_id"])
    op.create_table(
        "handle_signals",
        sa.Column("id", ROW_ID, primary_key=True, autoincrement=True),
        sa.Column("handle_id", sa.String(64), nullable=False),
        sa.Column("signal_id", sa.String(255), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("data", JSON, nullable=True),
        sa.Column("received_at", TIME, nullable=False),
        sa.UniqueConstraint("handle_id", "signal_id", name="uq_handle_signals_handle_signal"),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    for table in ("handle_signals", "agent_tokens", "agent_servers", "software_deployments", "software_objects"):
        op.drop_table(table)
