"""Scenario: a plan of a group change tells what apply then does, member by member, inside and out.

A ResourceGroup's count going from 3 to 2 is an update of the group in place that deletes member 2
and the server, port and volume it holds; going back to 3 creates them. The plan is taken from the
store's records before apply, and compared with the records apply leaves behind.
"""

from __future__ import annotations

from pathlib import Path

from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.plan_notes import StoredRecords
from reconciler.daemon.recorded_rows import recorded_for_plan
from reconciler.engine import StackStatus
from reconciler.plan import Action, plan_stack
from reconciler.source.plan_entries import planned_actions
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from tests.engine.group_templates import GROUP, NODE
from tests.engine.world import World


def _plan(world: World, parameters: dict[str, object]) -> dict[str, Action]:
    definition = load_stack(DirectorySource(world.repo_dir), "stack.yaml", parameters=parameters)
    rules = CloudRoot(world.clock, sim=world.sim).for_cloud("sim")
    recorded = recorded_for_plan(world.store.read_compared_records("magnum"))
    plan = plan_stack(definition, recorded, rules, stack="magnum", nested=StoredRecords(world.store))
    return {path: item.action for path, item in plan.flattened() if item.action is not Action.UNCHANGED}


def _all_records(world: World, stack: str = "magnum", prefix: str = "") -> dict[str, object]:
    """Every record of the stack and of its nested stacks, by path, with its applied properties."""
    found: dict[str, object] = {}
    for name, record in world.records(stack).items():
        found[f"{prefix}{name}"] = record.properties
        if record.physical_id == f"{stack}/{name}":
            found.update(_all_records(world, record.physical_id, f"{prefix}{name}."))
    return found


def _apply(world: World, parameters: dict[str, object]) -> tuple[set[str], set[str], set[str]]:
    """Apply, and what it did: the paths of records created, deleted and changed."""
    before = _all_records(world)
    world.submit("magnum", "stack.yaml", parameters)
    report = world.converge("magnum")["magnum"]
    assert report.status is StackStatus.CONVERGED, report.failures
    after = _all_records(world)
    changed = {path for path in before.keys() & after.keys() if before[path] != after[path]}
    return after.keys() - before.keys(), before.keys() - after.keys(), changed


def test_a_count_decrease_is_planned_as_the_update_apply_makes(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP, "node.yaml": NODE})
    _apply(world, {"count": 3})

    planned = _plan(world, {"count": 2})
    created, deleted, changed = _apply(world, {"count": 2})

    assert planned == {
        "nodes": Action.UPDATE,
        "nodes.2": Action.DELETE,
        "nodes.2.server": Action.DELETE,
        "nodes.2.port": Action.DELETE,
        "nodes.2.volume": Action.DELETE,
    }
    assert deleted == {path for path, action in planned.items() if action is Action.DELETE}
    assert created == set()
    assert changed == {"nodes"}
    world.close()


def test_a_count_increase_is_planned_as_the_creates_apply_makes(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP, "node.yaml": NODE})
    _apply(world, {"count": 2})

    planned = _plan(world, {"count": 3})
    created, deleted, changed = _apply(world, {"count": 3})

    assert planned == {
        "nodes": Action.UPDATE,
        "nodes.2": Action.CREATE,
        "nodes.2.server": Action.CREATE,
        "nodes.2.port": Action.CREATE,
        "nodes.2.volume": Action.CREATE,
    }
    assert created == {path for path, action in planned.items() if action is Action.CREATE}
    assert deleted == set()
    assert changed == {"nodes"}
    world.close()


def test_removal_policies_are_planned_on_the_member_they_name(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP, "node.yaml": NODE})
    _apply(world, {"count": 3})

    planned = _plan(world, {"count": 2, "removed": ["0"]})
    created, deleted, _ = _apply(world, {"count": 2, "removed": ["0"]})

    assert {path for path, action in planned.items() if action is Action.DELETE} == deleted
    assert deleted == {"nodes.0", "nodes.0.server", "nodes.0.port", "nodes.0.volume"}
    assert created == set()
    world.close()


def test_the_plan_note_lists_each_member_and_what_it_holds(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP, "node.yaml": NODE})
    _apply(world, {"count": 3})
    definition = load_stack(DirectorySource(world.repo_dir), "stack.yaml", parameters={"count": 2})
    rules = CloudRoot(world.clock, sim=world.sim).for_cloud("sim")
    recorded = recorded_for_plan(world.store.read_compared_records("magnum"))
    plan = plan_stack(definition, recorded, rules, stack="magnum", nested=StoredRecords(world.store))

    actions = planned_actions(plan, definition)

    assert actions.update == ()  # the group itself is no change of its own
    assert actions.replace == ()
    (member,) = actions.delete
    assert (member.resource, member.group, member.member) == ("nodes.2", "nodes", "2")
    assert {held.resource for held in member.holds} == {"server", "port", "volume"}
    assert actions.unchanged == 1  # the network
    world.close()


def test_a_changed_member_template_is_planned_and_an_unchanged_tree_is_not_walked(
    tmp_path: Path, sqlite_url: str
) -> None:
    """The group's properties are the same both times: only the member template tells them apart."""
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP, "node.yaml": NODE})
    _apply(world, {"count": 2})
    assert _plan(world, {"count": 2}) == {}

    extra = NODE.replace("outputs:", "  extra:\n    type: OS::Heat::None\noutputs:")
    world.commit({"node.yaml": extra}, "every member gains a resource")
    planned = _plan(world, {"count": 2})
    created, deleted, _ = _apply(world, {"count": 2})

    assert planned == {
        "nodes": Action.UPDATE,
        "nodes.0": Action.UPDATE,
        "nodes.0.extra": Action.CREATE,
        "nodes.1": Action.UPDATE,
        "nodes.1.extra": Action.CREATE,
    }
    assert created == {"nodes.0.extra", "nodes.1.extra"}
    assert deleted == set()
    world.close()
