"""Alembic environment: runs migrations on the connection `state.migrate` hands in, or on the URL.

Only online migrations: the store always has a live database to migrate.
"""

from __future__ import annotations

from alembic import context

from state.database import create_database_engine
from state.models import metadata


def _run(connection: object) -> None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)  # type: ignore[arg-type]
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Migrate the handed-in connection, or open one from the configured URL."""
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_database_engine(context.config.get_main_option("sqlalchemy.url") or "")
    try:
        with engine.connect() as opened:
            _run(opened)
    finally:
        engine.dispose()


run_migrations_online()
