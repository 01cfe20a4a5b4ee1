"""Scenario: the database goes away for a moment mid-pass (an outage, a commit whose answer is lost).

The pass stops acting on the shards it could not write, rebuilds them from their records on a later
pass, and the stacks still converge: nothing FAILED because the database was away, nothing created twice.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings, Latency
from reconciler.engine import StackStatus
from tests.engine.flaky_store import FlakyStore
from tests.engine.templates import server_group, servers
from tests.engine.test_scenario_stale_calls import made, networks
from tests.engine.world import World

NAMES = ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    ("method", "nth", "answer_lost"),
    [
        ("write_pass", 1, False),  # records, statuses and outputs of every shard acted on
        ("write_pass", 2, True),
        ("write_pass", 3, False),
        ("write_pass", 4, True),
        ("record_generations", 1, False),  # the group's nested stack, asked for in the group's pass
        ("record_generations", 1, True),
        ("read_records_of", 1, False),  # the nested stack's records, read when it is made
    ],
)
def test_a_store_call_failing_mid_pass_pauses_the_shard_and_the_stacks_still_converge(
    tmp_path: Path, database_url: str, method: str, nth: int, answer_lost: bool
) -> None:
    flakies: list[FlakyStore] = []
    world = World(tmp_path, database_url, store_seen_as=lambda store: FlakyStore.around(store, flakies))
    (flaky,) = flakies
    world.commit({"app.yaml": servers(NAMES), "group.yaml": server_group(3)})
    (flaky.answer_lost if answer_lost else flaky.unavailable)(method, nth)
    world.submit("app", "app.yaml")
    world.submit("group", "group.yaml")

    reports = world.converge("app", "group")

    assert {name: report.status for name, report in reports.items()} == {
        "app": StackStatus.CONVERGED,
        "group": StackStatus.CONVERGED,
    }, [report.failures for report in reports.values()]
    assert sorted(server["name"] for server in world.live("servers")) == sorted(
        [*NAMES, "member-0", "member-1", "member-2"]
    )
    assert flaky.failures == 1
    app_servers = {server["id"] for server in world.live("servers") if server["name"] in NAMES}
    ports = world.live("ports")
    assert len([port for port in ports if port["device_id"] in app_servers]) == len(NAMES)
    assert all(port["device_id"] for port in ports)  # none made twice and left behind
    assert world.store.read_stack("app").status is StackStatus.CONVERGED  # type: ignore[union-attr]
    world.close()


def test_a_stack_dropped_while_its_creates_are_out_is_rebuilt_only_once_they_are_back(
    tmp_path: Path, database_url: str
) -> None:
    """Given creates sent and still running; when the database is away in the next pass (its
    shards are dropped); then the stack is rebuilt from its records only after the creates landed,
    so the marker search finds what they made: nothing created twice."""
    flakies: list[FlakyStore] = []
    slow_creates = CloudSettings(latency=Latency(per_operation={"create": 5.0}))
    world = World(
        tmp_path,
        database_url,
        cloud=slow_creates,
        calls_take_engine_time=True,
        store_seen_as=lambda store: FlakyStore.around(store, flakies),
    )
    (flaky,) = flakies
    world.commit({"nets.yaml": networks(3)})
    world.submit("app", "nets.yaml")
    flaky.unavailable("newest_generation_id", 2)  # read at every pass: the second one stops there

    for _ in range(30):  # a second of engine time a pass: the creates land after five
        world.engine.step()
        world.clock.sleep(1.0)
    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert flaky.failures == 1
    assert sorted(made(world)) == ["net0", "net1", "net2"]
    world.close()


@pytest.mark.parametrize("answer_lost", [False, True])
def test_a_commit_submitted_while_the_database_is_away_is_made_on_a_later_pass(
    tmp_path: Path, database_url: str, answer_lost: bool
) -> None:
    """Given the database away (or a commit's answer lost) when a commit is handed to the engine
    between passes; then the submission is kept, not lost: the stack converges at that commit."""
    flakies: list[FlakyStore] = []
    world = World(tmp_path, database_url, store_seen_as=lambda store: FlakyStore.around(store, flakies))
    (flaky,) = flakies
    commit = world.commit({"app.yaml": servers(NAMES)})
    (flaky.answer_lost if answer_lost else flaky.unavailable)("record_generation")

    assert world.submit("app", "app.yaml") is None
    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert report.commit == commit
    assert flaky.failures == 1
    assert sorted(server["name"] for server in world.live("servers")) == sorted(NAMES)
    world.close()


@pytest.mark.parametrize("method", ["ensure_stack", "set_status"])
def test_a_commit_found_invalid_while_the_database_is_away_is_still_marked_invalid(
    tmp_path: Path, database_url: str, method: str
) -> None:
    """Given a converged stack; when its next commit is INVALID and the database is away as the
    engine is told; then the stack's row still ends INVALID (written on a later pass)."""
    flakies: list[FlakyStore] = []
    world = World(tmp_path, database_url, store_seen_as=lambda store: FlakyStore.around(store, flakies))
    (flaky,) = flakies
    world.commit({"app.yaml": servers(NAMES)})
    world.submit("app", "app.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    broken = world.commit({"app.yaml": "heat_template_version: [\n"})
    flaky.unavailable(method)

    world.engine.invalid("app", broken, ["app.yaml:1: not a template"])
    world.pass_time(3)

    assert flaky.failures == 1
    stored = world.store.read_stack("app")
    assert stored is not None and stored.status is StackStatus.INVALID
    assert world.engine.report("app").status is StackStatus.INVALID
    world.close()
