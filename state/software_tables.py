"""The tables of software orchestration: configs and the like, deployments, agent tokens, signals.

Hot queries and the index serving each:
- a token presented by an agent: `agent_tokens` primary key (the token's digest).
- a server's deployments (metadata polls): `ix_software_deployments_server`.
- a group's deployments: `ix_software_deployments_group`.
- what changed since a daemon last looked: `agent_changes`, 64 rows read whole.
- a handle's signals: `uq_handle_signals_handle_signal` (handle, signal id).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from state.models import Base, JsonValue, RowId


class SoftwareObjectRow(Base):
    """A config, a wait condition or a deployment group: JSON under an id."""

    __tablename__ = "software_objects"

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(32))
    stack: Mapped[str] = mapped_column(sa.String(255))
    body: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[float]


class SoftwareDeploymentRow(Base):
    """One deployment: the entry its server's metadata lists, its status and the outputs signalled."""

    __tablename__ = "software_deployments"

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    server_id: Mapped[str] = mapped_column(sa.String(255), index=True)
    group_id: Mapped[str | None] = mapped_column(sa.String(64), index=True)
    stack: Mapped[str] = mapped_column(sa.String(255))
    resource: Mapped[str] = mapped_column(sa.String(255))
    action: Mapped[str] = mapped_column(sa.String(16))
    status: Mapped[str] = mapped_column(sa.String(16))
    status_reason: Mapped[str] = mapped_column(sa.Text, default="")
    config_hash: Mapped[str] = mapped_column(sa.String(64))
    entry: Mapped[dict[str, Any]] = mapped_column(default=dict)
    outputs: Mapped[dict[str, Any]] = mapped_column(default=dict)
    deadline: Mapped[float | None]
    updated_at: Mapped[float]
    actions: Mapped[list[Any]] = mapped_column(default=list)  # the actions it runs for
    published: Mapped[bool] = mapped_column(sa.Boolean, default=True)  # listed in its server's metadata


class AgentServerRow(Base):
    """When a server's metadata last changed: its `Last-Modified`, strictly later at every change."""

    __tablename__ = "agent_servers"

    server_id: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    modified_at: Mapped[float]


class AgentTokenRow(Base):
    """A token (by digest) and what it lets its bearer do: read a server's metadata, signal one thing."""

    __tablename__ = "agent_tokens"

    digest: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(16))
    subject: Mapped[str] = mapped_column(sa.String(512), index=True)
    server_id: Mapped[str | None] = mapped_column(sa.String(255), index=True)
    created_at: Mapped[float]


class AgentChangeRow(Base):
    """A counter moved by every change of the metadata or tokens of the servers in its slot."""

    __tablename__ = "agent_changes"

    slot: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    counter: Mapped[int] = mapped_column(sa.BigInteger)


class HandleSignalRow(Base):
    """A signal a wait condition handle received; a repeated signal id replaces nothing."""

    __tablename__ = "handle_signals"
    __table_args__ = (
        sa.UniqueConstraint("handle_id", "signal_id", name="uq_handle_signals_handle_signal"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    handle_id: Mapped[str] = mapped_column(sa.String(64))
    signal_id: Mapped[str] = mapped_column(sa.String(255))
    status: Mapped[str] = mapped_column(sa.String(16))
    reason: Mapped[str] = mapped_column(sa.Text, default="")
    data: Mapped[Any] = mapped_column(JsonValue, nullable=True)
    received_at: Mapped[float]


def _table(model: type[Base]) -> sa.Table:
    table = model.__table__
    if not isinstance(table, sa.Table):  # pragma: no cover - declarative models always map a Table
        raise TypeError(f"{model.__name__} is not mapped to a table")
    return table


SOFTWARE_OBJECTS = _table(SoftwareObjectRow)
SOFTWARE_DEPLOYMENTS = _table(SoftwareDeploymentRow)
AGENT_SERVERS = _table(AgentServerRow)
AGENT_TOKENS = _table(AgentTokenRow)
AGENT_CHANGES = _table(AgentChangeRow)
HANDLE_SIGNALS = _table(HandleSignalRow)
