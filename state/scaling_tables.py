"""The tables of autoscaling: signals waiting for their shard's holder, and groups' runtime sizes.

Hot queries and the index serving each:
- the signals waiting on the shards a worker holds: `ix_scaling_signals_shard`;
- a repeated signal: `uq_scaling_signals_policy_key` (policy, signal key);
- a stack's group sizes (read when its run opens): the primary key (stack, resource).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from state.models import Base, RowId


class ScalingSignalRow(Base):
    """A scaling policy's signal, received by any daemon, acted on by the holder of its shard."""

    __tablename__ = "scaling_signals"
    __table_args__ = (
        sa.UniqueConstraint("policy", "signal_key", name="uq_scaling_signals_policy_key"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    policy: Mapped[str] = mapped_column(sa.String(64))  # the policy's physical id
    stack: Mapped[str] = mapped_column(sa.String(255))
    resource: Mapped[str] = mapped_column(sa.String(255))
    shard: Mapped[int] = mapped_column(sa.Integer, index=True)
    signal_key: Mapped[str] = mapped_column(sa.String(160))  # what makes a repeat a repeat
    received_at: Mapped[float]
    acted_at: Mapped[float | None]  # kept a while after, so a late repeat is known as one


class GroupSizeRow(Base):
    """A scaling group's size as its policies moved it, and the bounds git declared when they did."""

    __tablename__ = "group_sizes"

    stack: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    resource: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    size: Mapped[int] = mapped_column(sa.Integer)
    bounds: Mapped[dict[str, Any]] = mapped_column(default=dict)
    cooldown_end: Mapped[float]
    updated_at: Mapped[float]


def _table(model: type[Base]) -> sa.Table:
    table = model.__table__
    if not isinstance(table, sa.Table):  # pragma: no cover - declarative models always map a Table
        raise TypeError(f"{model.__name__} is not mapped to a table")
    return table


SCALING_SIGNALS = _table(ScalingSignalRow)
GROUP_SIZES = _table(GroupSizeRow)
