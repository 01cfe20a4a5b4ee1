"""The statements a deployment's write runs, built once and executed with their values.

Building a SQLAlchemy statement (its values coerced, its cache key made) costs several times what
SQLite takes to run it; a deployment written while a group is built runs seven. A statement
built once keeps its cache key, so each write binds values and runs. The upserts differ by
backend (`INSERT ... ON CONFLICT` is spelled by each dialect's own `insert`), so they are built
once per dialect.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from state.software_tables import AGENT_CHANGES, AGENT_SERVERS, AGENT_TOKENS, SOFTWARE_DEPLOYMENTS

DEPLOYMENT_COLUMNS = (
    "id",
    "server_id",
    "stack",
    "resource",
    "action",
    "status",
    "config_hash",
    "entry",
    "status_reason",
    "outputs",
    "deadline",
    "group_id",
    "updated_at",
    "actions",
    "published",
)

DEPLOYMENT_SERVERS = sa.select(SOFTWARE_DEPLOYMENTS.c.id, SOFTWARE_DEPLOYMENTS.c.server_id).where(
    SOFTWARE_DEPLOYMENTS.c.id.in_(sa.bindparam("ids", expanding=True))
)
TOKENS_OF_SUBJECT_DELETE = sa.delete(AGENT_TOKENS).where(AGENT_TOKENS.c.subject == sa.bindparam("subject"))
TOKEN_INSERT = sa.insert(AGENT_TOKENS)
SERVER_MODIFIED = sa.select(AGENT_SERVERS.c.modified_at).where(
    AGENT_SERVERS.c.server_id == sa.bindparam("server_id")
)
SERVERS_MODIFIED = sa.select(AGENT_SERVERS.c.server_id, AGENT_SERVERS.c.modified_at).where(
    AGENT_SERVERS.c.server_id.in_(sa.bindparam("server_ids", expanding=True))
)
SERVER_INSERT = sa.insert(AGENT_SERVERS)
# bound names other than the columns': those of an UPDATE's SET clause are reserved for it
SERVER_MOVE = (
    sa.update(AGENT_SERVERS)
    .where(AGENT_SERVERS.c.server_id == sa.bindparam("moved_server"))
    .values(modified_at=sa.bindparam("moved_to"))
)


def _insert(dialect: str, table: sa.Table) -> postgresql.Insert | sqlite.Insert:
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)


@cache
def deployment_upsert(dialect: str) -> Any:
    """Insert a deployment row, or overwrite every column of the one with its id."""
    insert = _insert(dialect, SOFTWARE_DEPLOYMENTS)
    columns = {name: insert.excluded[name] for name in DEPLOYMENT_COLUMNS if name != "id"}
    return insert.on_conflict_do_update(index_elements=["id"], set_=columns)


@cache
def counter_move(dialect: str) -> Any:
    """Move a slot's change counter by one (made at 1); its new value returned."""
    insert = _insert(dialect, AGENT_CHANGES)
    return insert.on_conflict_do_update(
        index_elements=["slot"], set_={"counter": AGENT_CHANGES.c.counter + 1}
    ).returning(AGENT_CHANGES.c.counter)
