"""The plan memo: once the converged commit's plan kept it, a plan of a change over the same records
decides the resources whose text changed (and those reading what moves) and reads only their
records; a record written since, or a change to what every resource shares, makes it a full plan."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path

import pytest

from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.memo_records import FetchedRecords, MemoStore, records_for_plan
from reconciler.daemon.plan_notes import StoredRecords
from reconciler.daemon.recorded_rows import recorded_for_plan
from reconciler.daemon.stored_blocks import StoredBlocks
from reconciler.plan import Action, plan_stack
from reconciler.templates import DirectorySource, StackDefinition, load_stack
from state import ComparedRecord, PlanMemos
from tests.engine.world import World

STACK = "app"


def _template(*, server_name: str = "web", prefix: str = "p") -> str:
    return f"""heat_template_version: 2018-08-31
parameters:
  prefix:
    type: string
    default: {prefix}
resources:
  net:
    type: OS::Neutron::Net
    properties:
      name: {{list_join: ['-', [{{get_param: prefix}}, net]]}}
  port:
    type: OS::Neutron::Port
    properties:
      network: {{get_resource: net}}
  server:
    type: OS::Nova::Server
    properties:
      name: {server_name}
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.tiny
      networks: [{{port: {{get_resource: port}}}}]
  volume:
    type: OS::Cinder::Volume
    properties:
      size: 1
  label:
    type: OS::Heat::Value
    properties:
      value: {{get_resource: volume}}
"""


class CountingStore:
    """The store, saying which records a plan read by name and whether it read them all."""

    def __init__(self, world: World) -> None:
        self._store = world.store
        self.named: list[str] = []
        self.whole = 0

    def plan_memos(self) -> PlanMemos:
        return self._store.plan_memos()

    def read_compared_records(self, stack: str) -> list[ComparedRecord]:
        self.whole += 1
        return self._store.read_compared_records(stack)

    def read_compared_records_named(self, stack: str, names: Collection[str]) -> list[ComparedRecord]:
        self.named.extend(names)
        return self._store.read_compared_records_named(stack, names)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    made = World(tmp_path, f"sqlite:///{tmp_path / 'state.sqlite'}")
    yield made
    made.close()


def _loaded(world: World) -> StackDefinition:
    blocks = StoredBlocks(world.store.template_blocks())
    return load_stack(DirectorySource(world.repo_dir), "stack.yaml", stack_name=STACK, blocks=blocks)


def _converged(world: World, template: str) -> None:
    world.commit({"stack.yaml": template})
    world.submit(STACK, "stack.yaml")
    assert world.converge(STACK)[STACK].status.value == "CONVERGED"
    records_for_plan(world.store, STACK, _loaded(world))  # the converged commit's plan keeps its memo


def _planned(world: World, store: MemoStore) -> dict[str, Action]:
    definition = _loaded(world)
    recorded, settled = records_for_plan(store, STACK, definition)
    rules = CloudRoot(world.clock, sim=world.sim).for_cloud("sim")
    nested = StoredRecords(world.store)
    plan = plan_stack(definition, recorded, rules, stack=STACK, nested=nested, settled=settled)
    every = recorded_for_plan(world.store.read_compared_records(STACK))
    full = plan_stack(definition, every, rules, stack=STACK, nested=nested)
    assert [(item.name, item.action) for item in plan.resources] == [
        (item.name, item.action) for item in full.resources
    ]
    return {item.name: item.action for item in plan.resources}


def test_a_one_line_change_reads_only_the_records_of_what_it_changed(world: World) -> None:
    _converged(world, _template())
    world.commit({"stack.yaml": _template(server_name="web-2")})
    store = CountingStore(world)
    actions = _planned(world, store)
    assert actions["server"] is Action.UPDATE
    assert {name for name, action in actions.items() if action is not Action.UNCHANGED} == {"server"}
    assert store.whole == 0
    assert set(store.named) == {"server", "port"}  # and the port whose id the server reads


def test_what_reads_a_replaced_resource_is_decided_and_its_record_read_when_asked_for(world: World) -> None:
    _converged(world, _template())
    world.commit({"stack.yaml": _template().replace("size: 1", "size: 1\n      image: cirros")})
    store = CountingStore(world)
    actions = _planned(world, store)
    assert actions["volume"] is Action.REPLACE
    assert actions["label"] is Action.UPDATE  # reads the new volume's id
    assert store.whole == 0
    assert set(store.named) == {"volume", "label"}


def test_a_record_written_since_the_memo_makes_a_full_plan(world: World) -> None:
    _converged(world, _template())
    _converged(world, _template(server_name="web-2"))
    world.commit({"stack.yaml": _template(server_name="web-3")})
    world.submit(STACK, "stack.yaml")
    world.converge(STACK)  # records written, no memo kept at their new stamp
    world.commit({"stack.yaml": _template(server_name="web-4")})
    store = CountingStore(world)
    recorded, _ = records_for_plan(store, STACK, _loaded(world))
    assert store.whole == 1 and not isinstance(recorded, FetchedRecords)
    again, _ = records_for_plan(store, STACK, _loaded(world))  # the full plan kept one: read now
    assert isinstance(again, FetchedRecords)


def test_a_change_every_resource_shares_makes_a_full_plan(world: World) -> None:
    _converged(world, _template())
    world.commit({"stack.yaml": _template(prefix="q")})  # a parameter's default: the shared inputs
    store = CountingStore(world)
    actions = _planned(world, store)
    assert actions["net"] is Action.UPDATE
    assert store.whole == 1


def test_a_converged_stack_s_quiet_passes_leave_its_memo_standing(world: World) -> None:
    _converged(world, _template())
    kept = world.store.plan_memos().read(STACK)
    world.pass_time(3_600.0, STACK)  # an hour of observe passes, nothing drifting
    assert world.store.plan_memos().read(STACK) == kept
    world.sim.cloud.delete("servers", world.records(STACK)["server"].physical_id)  # drift
    world.pass_time(600.0, STACK)
    assert world.store.plan_memos().read(STACK).content is None  # the repair wrote the server's record
