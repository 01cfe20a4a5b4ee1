"""Scenario: a commit whose template is wrong makes the stack INVALID, written only by its shard's holder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.engine.templates import servers
from tests.engine.world import World


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url)
    world.commit({"stack.yaml": servers(["web"])})
    world.submit("app", "stack.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    yield world
    world.close()


def stored_status(world: World) -> StackStatus:
    state = world.store.read_stack("app")
    assert state is not None
    return state.status


def test_the_shard_holder_records_invalid_in_the_store(world: World) -> None:
    bad = world.commit({"stack.yaml": "resources: [broken\n"}, "A typo")

    world.engine.invalid("app", bad, ["stack.yaml:1: broken YAML"])

    assert stored_status(world) is StackStatus.INVALID
    assert world.engine.report("app").status is StackStatus.INVALID


def test_a_worker_not_holding_the_shard_reports_invalid_but_leaves_the_row_to_the_holder(
    world: World,
) -> None:
    """Given worker A holding the stack's shard; when worker B (no shard) is told the commit is
    INVALID; then B's own report says INVALID, and the store keeps A's status."""
    bad = world.commit({"stack.yaml": "resources: [broken\n"}, "A typo")
    worker_b = world.start_worker("worker-b")

    worker_b.invalid("app", bad, ["stack.yaml:1: broken YAML"])

    assert worker_b.report("app").status is StackStatus.INVALID
    assert stored_status(world) is StackStatus.CONVERGED
    worker_b.close()


def test_a_worker_that_lost_its_lease_writes_no_invalid_status(world: World) -> None:
    """Given worker A whose lease expired and went to worker B; when A is told the commit is INVALID;
    then the store keeps what B wrote."""
    worker_a = world.engine
    world.clock.sleep(world.store.settings.lease_seconds + 1)
    world.engine = world.start_worker("worker-b")
    world.submit("app", "stack.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    bad = world.commit({"stack.yaml": "resources: [broken\n"}, "A typo")

    worker_a.invalid("app", bad, ["stack.yaml:1: broken YAML"])

    assert stored_status(world) is StackStatus.CONVERGED
    worker_a.close()
