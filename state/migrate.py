"""Schema migrations through Alembic, callable from code (daemon start) and from `reconciler db upgrade`.

Upgrading keeps data: every schema change is a migration under `state/migrations/versions`. On
PostgreSQL the upgrade holds an advisory lock, so daemons starting together migrate one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL

from state.database import create_database_engine, is_postgresql

MIGRATIONS = Path(__file__).resolve().with_name("migrations")
MIGRATION_LOCK_KEY = 0x7265636F6E63  # "reconc": one advisory lock for every reconciler database


@dataclass(frozen=True)
class UpgradeOutcome:
    """The schema revision before and after an upgrade."""

    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after


def alembic_config() -> Config:
    """An Alembic configuration pointing at the packaged migrations (works from a non-editable install)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("version_locations", str(MIGRATIONS / "versions"))
    config.set_main_option("path_separator", "os")
    return config


def head_revision() -> str | None:
    """The newest revision the code knows."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(url: str | URL) -> str | None:
    """The revision the database is at (None for an empty database)."""
    engine = create_database_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def upgrade(url: str | URL, revision: str = "head") -> UpgradeOutcome:
    """Bring the database at `url` to `revision`, keeping its data."""
    engine = create_database_engine(url)
    config = alembic_config()
    try:
        with engine.begin() as connection:
            if is_postgresql(engine):
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(MIGRATION_LOCK_KEY)))
            before = MigrationContext.configure(connection).get_current_revision()
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
            after = MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
    return UpgradeOutcome(before=before, after=after)
