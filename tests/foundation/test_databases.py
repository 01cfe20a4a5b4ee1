"""The database fixtures hand out real, isolated databases."""

from __future__ import annotations

import pytest
import sqlalchemy as sa


@pytest.mark.postgres
def test_postgres_databases_are_real_and_isolated(postgres_url: str) -> None:
    engine = sa.create_engine(postgres_url)
    try:
        with engine.begin() as connection:
            version = connection.execute(sa.text("SHOW server_version")).scalar_one()
            connection.execute(sa.text("CREATE TABLE marker (id integer)"))
            tables = connection.execute(
                sa.text("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
            ).scalar_one()
    finally:
        engine.dispose()
    assert str(version).split(".")[0].isdigit()
    assert tables == 1  # a fresh database: only the table this test made


def test_sqlite_database_is_a_fresh_file(sqlite_url: str) -> None:
    engine = sa.create_engine(sqlite_url)
    try:
        with engine.begin() as connection:
            tables = connection.execute(sa.text("SELECT count(*) FROM sqlite_master")).scalar_one()
    finally:
        engine.dispose()
    assert tables == 0
