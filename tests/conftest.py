"""Fixtures shared by every test: isolated databases on SQLite and on the real PostgreSQL.

`make test` starts the machine's PostgreSQL and exports RECONCILER_TEST_DATABASE_URL (see
tests/ensure_postgres.sh). Without it, PostgreSQL tests are skipped on a developer's machine; under
CI (`CI=true`) an unusable PostgreSQL fails them instead, so a broken database never passes quietly.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

POSTGRES_URL_VARIABLE = "RECONCILER_TEST_DATABASE_URL"


def _unusable_postgres(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"PostgreSQL is unusable under CI: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL unavailable: {reason}")


def psycopg_url(url: str) -> URL:
    """A SQLAlchemy URL for psycopg 3, whatever PostgreSQL spelling it was given in."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


@pytest.fixture(scope="session")
def postgres_server_url() -> URL:
    """The URL of a usable PostgreSQL server (its maintenance database)."""
    raw = os.environ.get(POSTGRES_URL_VARIABLE)
    if not raw:
        _unusable_postgres(f"{POSTGRES_URL_VARIABLE} is not set (run the suite with `make test`)")
        raise AssertionError("unreachable")
    url = psycopg_url(raw)
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except sa.exc.SQLAlchemyError as error:
        _unusable_postgres(f"cannot connect: {error.__class__.__name__}")
    finally:
        engine.dispose()
    return url


@pytest.fixture
def postgres_url(postgres_server_url: URL) -> Iterator[str]:
    """A fresh PostgreSQL database for one test, dropped afterwards; its URL as a string."""
    name = f"reconciler_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(postgres_server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
        yield postgres_server_url.set(database=name).render_as_string(hide_password=False)
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A fresh SQLite database file for one test."""
    return f"sqlite:///{tmp_path / 'state.sqlite'}"


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest) -> str:
    """Runs a test once on SQLite and once on the real PostgreSQL."""
    name = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    value = request.getfixturevalue(name)
    assert isinstance(value, str)
    return value
