"""A COMMIT whose answer is lost (the database restarts, the network drops) on the real PostgreSQL:
the store learns from the server what became of the transaction instead of guessing. Committed:
the result stands and nothing runs twice. Rolled back: the transaction runs again. Neither is an
error the caller sees."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from state.database import create_database_engine
from state.transactions import RetryPolicy, Transactor
from tests.state.commit_cutting_proxy import CommitCuttingProxy, Cut, commit_cutting_proxy
from timekeeping import SystemClock

pytestmark = pytest.mark.postgres


@pytest.fixture
def proxy(postgres_url: str) -> Iterator[CommitCuttingProxy]:
    engine = create_database_engine(postgres_url)
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE deliveries (id serial PRIMARY KEY)"))
    engine.dispose()
    with commit_cutting_proxy(postgres_url) as running:
        yield running


def _deliveries(transactor: Transactor) -> int:
    return transactor.read(
        "count", lambda c: int(c.execute(sa.text("SELECT count(*) FROM deliveries")).scalar_one())
    )


@pytest.mark.parametrize("cut", list(Cut), ids=lambda cut: cut.name.lower())
def test_a_write_whose_commit_was_lost_is_applied_exactly_once(proxy: CommitCuttingProxy, cut: Cut) -> None:
    clock = SystemClock()
    transactor = Transactor(
        create_database_engine(proxy.url), clock=clock, sleeper=clock, policy=RetryPolicy(budget_seconds=5.0)
    )
    runs: list[int] = []

    def deliver(connection: sa.Connection) -> int:
        runs.append(1)
        return int(
            connection.execute(sa.text("INSERT INTO deliveries DEFAULT VALUES RETURNING id")).scalar_one()
        )

    try:
        proxy.arm(cut)
        delivered = transactor.run("deliver", deliver)
        assert proxy.cuts == 1
        assert _deliveries(transactor) == 1
    finally:
        transactor.engine.dispose()
    assert len(runs) == (1 if cut is Cut.ANSWER else 2)
    assert delivered == len(runs)  # the id of the one row that was committed
