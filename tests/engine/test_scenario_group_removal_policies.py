"""Scenario: a ResourceGroup's `removal_policies` remove the members named first, as Magnum uses them,
and the names removed are never used again (Heat's `removal_policies_mode: append`)."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.group_templates import GROUP, NODE, server_names
from tests.engine.world import World


def _converged(world: World, parameters: dict[str, object]) -> None:
    world.submit("magnum", "stack.yaml", parameters)
    report = world.converge("magnum")["magnum"]
    assert report.status is StackStatus.CONVERGED, report.failures


def test_a_count_decrease_removes_the_member_listed_with_all_it_holds(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP, "node.yaml": NODE})
    _converged(world, {})
    member_1 = {name: record.physical_id for name, record in world.records("magnum/nodes/1").items()}

    _converged(world, {"count": 4, "removed": ["1"]})

    assert sorted(world.records("magnum/nodes")) == ["0", "2", "3", "4"]
    assert server_names(world.live("servers")) == ["node-0", "node-2", "node-3", "node-4"]
    live_ids = {
        item["id"] for collection in ("servers", "ports", "volumes") for item in world.live(collection)
    }
    assert not live_ids & set(member_1.values())
    assert world.outputs("magnum")["removed"] == ["1"]
    assert world.records("magnum/nodes/1") == {}

    _converged(world, {"count": 5, "removed": []})  # the list written is empty; the name stays removed

    assert sorted(world.records("magnum/nodes")) == ["0", "2", "3", "4", "5"]
    assert world.outputs("magnum")["labels"] == ["node-0", "node-2", "node-3", "node-4", "node-5"]
    assert world.outputs("magnum")["removed"] == ["1"]
    world.close()


def test_a_member_is_named_by_its_reference_too(tmp_path: Path, sqlite_url: str) -> None:
    """An entry may be what `refs` lists (here each member's `OS::stack_id`: its server's id)."""
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP, "node.yaml": NODE})
    _converged(world, {"count": 3})
    server_of_2 = world.outputs("magnum")["refs_map"]["2"]
    assert server_of_2 == world.records("magnum/nodes/2")["server"].physical_id

    _converged(world, {"count": 2, "removed": [server_of_2]})

    assert sorted(world.records("magnum/nodes")) == ["0", "1"]
    assert world.outputs("magnum")["removed"] == ["2"]
    world.close()


def test_update_mode_starts_the_list_again_so_a_name_may_come_back(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url)
    world.commit({"stack.yaml": GROUP, "node.yaml": NODE})
    _converged(world, {"count": 3})
    _converged(world, {"count": 2, "removed": ["0"]})
    assert sorted(world.records("magnum/nodes")) == ["1", "2"]

    _converged(world, {"count": 3, "removed": [], "mode": "update"})

    assert sorted(world.records("magnum/nodes")) == ["0", "1", "2"]
    assert world.outputs("magnum")["removed"] == []
    world.close()
