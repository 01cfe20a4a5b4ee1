"""Scenario: new commits arrive mid-convergence; the stack ends in the newest, nothing of the others left."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings
from reconciler.engine import StackStatus
from tests.engine.templates import servers
from tests.engine.world import World


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url, cloud=CloudSettings(time_to_active=20.0))
    yield world
    world.close()


def live_server_names(world: World) -> list[str]:
    return sorted(server["name"] for server in world.live("servers"))


def test_a_second_commit_mid_convergence_wins(world: World) -> None:
    """Given servers a, b, c still building; when a commit replaces them by d, e; then only d, e remain."""
    world.commit({"stack.yaml": servers(["a", "b", "c"])})
    first = world.submit("app", "stack.yaml")
    world.step_until(lambda: len(world.live("servers")) == 3)
    assert world.engine.report("app").status is StackStatus.PROGRESSING
    assert {server["status"] for server in world.live("servers")} == {"BUILD"}

    world.commit({"stack.yaml": servers(["d", "e"])})
    second = world.submit("app", "stack.yaml")
    report = world.converge("app")["app"]

    assert first is not None and second == first + 1
    assert report.status is StackStatus.CONVERGED, report.failures
    assert report.commit == world.commits[-1] and world.commits[0] in report.superseded
    assert live_server_names(world) == ["d", "e"]
    assert set(world.records("app")) == {"net", "d", "d_port", "e", "e_port"}
    assert len(world.live("ports")) == 2


def test_ten_overlapping_commits_end_in_the_last_ones_state(world: World) -> None:
    """Given a burst of ten commits, each a pass apart; then the cloud holds exactly the tenth's servers."""
    for index in range(10):
        world.commit({"stack.yaml": servers([f"s{index}x", f"s{index}y"], user_data=f"v{index}")})
        world.submit("app", "stack.yaml")
        world.engine.step()
        world.clock.sleep(3.0)
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert report.commit == world.commits[-1]
    assert live_server_names(world) == ["s9x", "s9y"]
    assert len(world.live("ports")) == 2 and len(world.live("networks")) == 2  # ours and the public one
    assert set(world.records("app")) == {"net", "s9x", "s9x_port", "s9y", "s9y_port"}


LONE_SERVER = """heat_template_version: 2018-08-31
resources:
  web:
    type: OS::Nova::Server
    properties: {{name: web, image: cirros-0.6.2-x86_64-disk, flavor: {flavor}}}
"""


def test_a_failure_of_the_superseded_commit_does_not_block_the_newest(world: World) -> None:
    """Given a create sent for a commit naming a flavor the cloud lacks; when a commit fixing the
    flavor arrives before that create's answer is read; then the newest commit converges."""
    world.commit({"stack.yaml": LONE_SERVER.format(flavor="no-such-flavor")})
    world.submit("app", "stack.yaml")
    world.engine.step()  # the create is sent; its refusal is read on the next pass

    world.commit({"stack.yaml": LONE_SERVER.format(flavor="m1.small")})
    world.submit("app", "stack.yaml")
    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert [server["name"] for server in world.live("servers")] == ["web"]


def test_the_store_records_that_a_generation_still_in_progress_ended_superseded(world: World) -> None:
    """Given a commit still PROGRESSING when the next arrives; then the store says its generation
    ended SUPERSEDED, and nothing of the kind for the newest one, which converged."""
    world.commit({"stack.yaml": servers(["a"])})
    first = world.submit("app", "stack.yaml")
    world.step_until(lambda: len(world.live("servers")) == 1)
    assert world.engine.report("app").status is StackStatus.PROGRESSING

    world.commit({"stack.yaml": servers(["b"])})
    second = world.submit("app", "stack.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED

    assert world.store.generation_endings("app") == {first: StackStatus.SUPERSEDED}
    stored = world.store.read_stack("app")
    assert stored is not None and (stored.status, stored.status_generation) == (StackStatus.CONVERGED, second)


def test_a_generation_that_settled_before_the_next_arrived_is_not_superseded(world: World) -> None:
    world.commit({"stack.yaml": servers(["a"])})
    world.submit("app", "stack.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    world.commit({"stack.yaml": servers(["b"])})
    world.submit("app", "stack.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED

    assert world.store.generation_endings("app") == {}
