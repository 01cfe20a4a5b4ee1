"""Schema migrations through Alembic, callable from code (daemon start) and from `reconciler db upgrade`.

Upgrading keeps data: every schema change is a migration under `state/migrations/versions`. On
PostgreSQL the upgrade holds an advisory lock, so daemons starting together migrate one at a time.
A database already at the head is told by one read of its recorded revision: Alembic is imported
only when a migration has to run (or a command asks it), since every command opening the store
would otherwise pay for its import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import URL

from state.database import create_database_engine, is_postgresql
from state.revisions import packaged_head

if TYPE_CHECKING:
    from alembic.config import Config

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
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("version_locations", str(MIGRATIONS / "versions"))
    config.set_main_option("path_separator", "os")
    return config


def head_revision() -> str | None:
    """The newest revision the code knows."""
    return packaged_head(MIGRATIONS / "versions")


def current_revision(url: str | URL) -> str | None:
    """The revision the database is at (None for an empty database)."""
    from alembic.runtime.migration import MigrationContext

    engine = create_database_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def _recorded_revision(engine: sa.Engine) -> str | None:
    """The revision Alembic recorded in the database, None when it recorded none (or no table)."""
    with engine.connect() as connection:
        try:
            rows = connection.execute(sa.text("SELECT version_num FROM alembic_version")).all()
        except sa.exc.DBAPIError:  # no such table: a database no reconciler made yet
            return None
    return str(rows[0][0]) if len(rows) == 1 else None


def upgrade(url: str | URL, revision: str = "head") -> UpgradeOutcome:
    """Bring the database at `url` to `revision`, keeping its data."""
    engine = create_database_engine(url)
    try:
        if revision == "head":
            head = head_revision()
            if _recorded_revision(engine) == head:
                return UpgradeOutcome(before=head, after=head)
        return _upgrade_by_alembic(engine, revision)
    finally:
        engine.dispose()


def _upgrade_by_alembic(engine: sa.Engine, revision: str) -> UpgradeOutcome:
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    config = alembic_config()
    with engine.begin() as connection:
        if is_postgresql(engine):
            connection.execute(sa.select(sa.func.pg_advisory_xact_lock(MIGRATION_LOCK_KEY)))
        before = MigrationContext.configure(connection).get_current_revision()
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
        after = MigrationContext.configure(connection).get_current_revision()
    return UpgradeOutcome(before=before, after=after)
