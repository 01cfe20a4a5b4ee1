"""Crash safety, tried from outside: each chaos scenario, run N times, ends with every stack
CONVERGED at the newest commit, nothing duplicated, orphaned or missing, and no stall.

Slow (minutes per run): `make chaos` or `make bench`. RECONCILER_CHAOS_RUNS sets N (default 1),
RECONCILER_CHAOS_MEMBERS the members per fleet (default 50: 400 resources; 250: 2,000). Needs
the PostgreSQL server binaries (tests/ensure_postgres.sh installs them); each run makes its own
cluster and removes it.
"""

from __future__ import annotations

import os

import pytest

from bench.chaos.harness import RunOptions, execute
from bench.chaos.scenarios import SCENARIOS

RUNS = int(os.environ.get("RECONCILER_CHAOS_RUNS", "1"))
MEMBERS = int(os.environ.get("RECONCILER_CHAOS_MEMBERS", "50"))


@pytest.mark.slow
@pytest.mark.parametrize("scenario", [name for name in SCENARIOS if name != "calm"])
def test_every_run_converges_with_nothing_duplicated_orphaned_missing_or_stalled(scenario: str) -> None:
    failures = []
    for index in range(1, RUNS + 1):
        figures = execute(SCENARIOS[scenario], RunOptions(members=MEMBERS), index)
        print(figures.line())
        if not figures.passed:
            failures.append(figures.line())
    assert not failures, "\n".join(failures)
