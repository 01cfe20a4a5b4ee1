"""Migrations: they build exactly the models' schema, keep data on upgrade, and ship in an install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from state.database import create_database_engine
from state.lease_settings import LeaseSettings
from state.migrate import alembic_config, current_revision, head_revision, upgrade
from state.models import metadata
from state.store import open_store
from timekeeping.testing import SteppedClock

REPOSITORY = Path(__file__).resolve().parents[2]


def test_the_migrations_build_exactly_the_schema_of_the_models(database_url: str) -> None:
    upgrade(database_url)
    engine = create_database_engine(database_url)
    try:
        with engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), metadata)
    finally:
        engine.dispose()
    assert differences == []


def test_upgrading_again_keeps_the_data(database_url: str) -> None:
    clock = SteppedClock()
    store = open_store(database_url, clock=clock, settings=LeaseSettings(shard_count=2), sleeper=clock)
    store.record_generation("app", commit_sha="a" * 40, definition_digest="d1", inputs={"k": "v"})
    store.close()

    outcome = upgrade(database_url)

    assert (outcome.before, outcome.after, outcome.changed) == (head_revision(), head_revision(), False)
    reopened = open_store(database_url, clock=clock, sleeper=clock)
    try:
        generation = reopened.newest_generation("app")
    finally:
        reopened.close()
    assert generation is not None and generation.inputs == {"k": "v"}


def test_the_head_read_from_the_migration_files_is_alembics() -> None:
    assert head_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_opening_a_database_at_the_head_leaves_alembic_unimported(sqlite_url: str) -> None:
    upgrade(sqlite_url)
    program = (
        "import sys, state.migrate; "
        "outcome = state.migrate.upgrade(sys.argv[1]); "
        "print(outcome.before, outcome.changed, 'alembic' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", program, sqlite_url], check=True, capture_output=True, text=True
    )
    assert result.stdout.split() == [head_revision(), "False", "False"]


def test_an_empty_database_has_no_revision_until_upgraded(sqlite_url: str) -> None:
    assert current_revision(sqlite_url) is None
    assert upgrade(sqlite_url).before is None
    assert current_revision(sqlite_url) == head_revision()


def test_a_built_package_carries_its_migrations(tmp_path: Path) -> None:
    """What a non-editable install copies (setup.py build_py) is enough to migrate a database."""
    built = tmp_path / "lib"
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(built)],
        cwd=REPOSITORY,
        check=True,
        capture_output=True,
    )
    database = tmp_path / "installed.sqlite"
    program = (
        "import state.migrate, sys; "
        "assert state.migrate.__file__.startswith(sys.argv[1]), state.migrate.__file__; "
        "print(state.migrate.upgrade(sys.argv[2]).after)"
    )
    result = subprocess.run(
        [sys.executable, "-P", "-c", program, str(built), f"sqlite:///{database}"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(built)},
        check=True,
        capture_output=True,
        text=True,
    )
    assert result.stdout.strip() == head_revision()
    engine = sa.create_engine(f"sqlite:///{database}")
    try:
        tables = set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert {"workers", "shard_leases", "resource_records", "work_items", "notes_outbox"} <= tables


def _insert_record(connection: sa.Connection, name: str) -> None:
    connection.execute(
        sa.text(
            "INSERT INTO resource_records (stack, logical_name, type, properties, attributes, status, "
            "generation, attempts, updated_at) "
            "VALUES ('app', :name, 'OS::Heat::None', '{}', '{}', 'CREATED', 1, 0, 1)"
        ),
        {"name": name},
    )


def test_upgrading_from_the_first_revision_keeps_records_and_stops_reusing_ids(database_url: str) -> None:
    upgrade(database_url, "0001")
    engine = create_database_engine(database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                sa.text("INSERT INTO stacks VALUES ('app', 0, 'PENDING', '[]', NULL, '{}', 1.0)")
            )
            _insert_record(connection, "net")
        upgrade(database_url)
        with engine.begin() as connection:
            kept = connection.execute(sa.text("SELECT id, logical_name FROM resource_records")).all()
            connection.execute(sa.text("DELETE FROM resource_records"))
            _insert_record(connection, "port")
            fresh = connection.execute(sa.text("SELECT id FROM resource_records")).scalar_one()
    finally:
        engine.dispose()
    assert kept == [(1, "net")]
    assert fresh == 2
