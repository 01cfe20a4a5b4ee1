"""Scenario: a ResourceGroup's rolling update goes in Heat's batches on the engine's clock.

Members are test resources that take 10 s to create or update. Changing their definition under
`rolling_update` renews them batch by batch: at most `max_batch_size` at a time, highest index
first, with temporary extra members so that `min_in_service` stay in service, `pause_time`
between batches, and the group back at its size at the end. A change of the count alone is made
at once. Every pass is watched, so each batch is seen as it runs and compared with Heat's.
"""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.world import World

GROUP = """
heat_template_version: 2018-08-31
parameters:
  value: {{type: string, default: old}}
  count: {{type: number, default: 4}}
resources:
  nodes:
    type: OS::Heat::ResourceGroup
    update_policy:
      rolling_update: {policy}
    properties:
      count: {{get_param: count}}
      resource_def:
        type: OS::Heat::TestResource
        properties: {{value: {{get_param: value}}, wait_secs: 10}}
"""


def _members(world: World) -> dict[str, str]:
    """The members recorded now, each with the value it was last given."""
    return {name: record.properties.get("value") for name, record in world.records("rolling/nodes").items()}


def _watch_update(world: World, parameters: dict[str, object]) -> tuple[list[dict[str, str]], float]:
    """Apply `parameters`, and every distinct state of the members seen on the way, and the time taken."""
    started = world.clock.now()
    world.submit("rolling", "stack.yaml", parameters)
    seen = [_members(world)]

    def converged() -> bool:
        members = _members(world)
        if members != seen[-1]:
            seen.append(members)
        return world.engine.report("rolling").status is StackStatus.CONVERGED and members == seen[-1]

    world.step_until(converged, passes=600)
    return seen, world.clock.now() - started


def _start(tmp_path: Path, sqlite_url: str, policy: str) -> World:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP.format(policy=policy)})
    world.submit("rolling", "stack.yaml")
    assert world.converge("rolling")["rolling"].status is StackStatus.CONVERGED
    return world


def _renewed(seen: list[dict[str, str]]) -> list[tuple[list[str], list[str]]]:
    """Each state seen as (members, members with the new definition), names in index order."""
    return [
        (sorted(members, key=int), sorted((n for n, value in members.items() if value == "new"), key=int))
        for members in seen
    ]


def test_min_in_service_makes_temporary_members_and_renews_the_highest_index_first(
    tmp_path: Path, sqlite_url: str
) -> None:
    """Heat's batches for 4 members, 2 at a time, 4 in service: (6, 2) (6, 2) (6, 2) (4, 0)."""
    world = _start(tmp_path, sqlite_url, "{min_in_service: 4, max_batch_size: 2, pause_time: 30}")

    seen, took = _watch_update(world, {"value": "new"})

    six = ["0", "1", "2", "3", "4", "5"]
    assert _renewed(seen) == [
        (["0", "1", "2", "3"], []),
        (six, ["4", "5"]),  # two temporary members, made with the new definition
        (six, ["2", "3", "4", "5"]),  # then the highest index first
        (six, six),
        (["0", "1", "2", "3"], ["0", "1", "2", "3"]),  # and the temporary ones go
    ]
    assert 3 * 10 + 3 * 30 <= took < 3 * 10 + 3 * 30 + 10  # a pause between batches, none after the last
    world.close()


def test_batches_without_min_in_service_renew_in_place(tmp_path: Path, sqlite_url: str) -> None:
    """Heat's batches for 4 members, 2 at a time: (4, 2) (4, 2), members 3 and 2 first."""
    world = _start(tmp_path, sqlite_url, "{max_batch_size: 2, pause_time: 5}")

    seen, took = _watch_update(world, {"value": "new"})

    four = ["0", "1", "2", "3"]
    assert _renewed(seen) == [(four, []), (four, ["2", "3"]), (four, four)]
    assert 2 * 10 + 5 <= took < 2 * 10 + 5 + 5
    world.close()


def test_one_at_a_time_with_three_in_service_needs_no_temporary_member(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = _start(tmp_path, sqlite_url, "{min_in_service: 3, max_batch_size: 1}")

    seen, _ = _watch_update(world, {"value": "new"})

    four = ["0", "1", "2", "3"]
    assert _renewed(seen) == [
        (four, []),
        (four, ["3"]),
        (four, ["2", "3"]),
        (four, ["1", "2", "3"]),
        (four, four),
    ]
    world.close()


def test_a_count_change_alone_is_made_at_once(tmp_path: Path, sqlite_url: str) -> None:
    world = _start(tmp_path, sqlite_url, "{max_batch_size: 1, pause_time: 60}")

    seen, took = _watch_update(world, {"count": 8})

    assert len(seen[-1]) == 8
    assert took < 60  # four new members together, no pause
    world.close()


SCALING_GROUP = """
heat_template_version: 2018-08-31
parameters:
  value: {type: string, default: old}
resources:
  nodes:
    type: OS::Heat::AutoScalingGroup
    update_policy:
      rolling_update: {min_in_service: 3, max_batch_size: 2, pause_time: 0}
    properties:
      min_size: 1
      max_size: 10
      desired_capacity: 3
      resource:
        type: OS::Heat::TestResource
        properties: {value: {get_param: value}, wait_secs: 10}
"""


def test_an_autoscaling_group_rolls_in_the_same_batches(tmp_path: Path, sqlite_url: str) -> None:
    """3 members, 2 at a time, 3 in service: Heat's batches (5, 2) with two temporary members, (5, 2),
    (4, 1), (3, 0); members are named by index here, so the temporary ones are the highest."""
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": SCALING_GROUP})
    world.submit("rolling", "stack.yaml")
    assert world.converge("rolling")["rolling"].status is StackStatus.CONVERGED

    seen, _ = _watch_update(world, {"value": "new"})

    assert [len(members) for members in seen] == [3, 5, 5, 4, 3]  # the third batch removes one, renews one
    assert seen[-1] == {"0": "new", "1": "new", "2": "new"}
    world.close()
