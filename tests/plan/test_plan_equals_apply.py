"""Property: for any stack and any change to it, the plan names, resource by resource, the action
apply then takes on the simulated cloud.

Hypothesis draws a stack (servers on ports, volumes, random strings, a ResourceGroup with a count,
`depends_on`, values read from other resources) and a few changes to it (resources added and
removed, properties that change in place and ones that replace, a parameter read directly and
through a condition). At each step the plan is made from the store's records as `reconciler plan`
makes it (again resolving every resource, and again with the plan memo the converged commit's plan
kept, which must all say the same); then the change is applied, and what
apply did is read back from the records: a record new (created), gone (deleted), with a new
physical id (replaced) or with new applied properties (updated). A group's members are compared as
their own entries (`nodes.2`), the group itself never. The default run draws a few examples; the
slow one many more.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.memo_records import FetchedRecords, records_for_plan
from reconciler.daemon.plan_notes import StoredRecords
from reconciler.daemon.recorded_rows import recorded_for_plan
from reconciler.daemon.stored_blocks import StoredBlocks
from reconciler.engine import StackStatus
from reconciler.plan import plan_stack
from reconciler.plan.settled_memo import settled_by_memo
from reconciler.source.plan_entries import planned_actions
from reconciler.templates import DirectorySource, StackDefinition, load_stack
from tests.engine.world import World
from tests.plan.random_stacks import StackModel, changed_models, stack_models

STACK = "drawn"
GROUP = "nodes"
ACTIONS = ("create", "update", "replace", "delete")


def _recorded(world: World) -> dict[str, tuple[str | None, Any]]:
    """path -> (physical id, applied properties) of every top-level record and group member."""
    found = {
        record.logical_name: (record.physical_id, record.properties)
        for record in world.store.read_records(STACK)
        if record.replaced_by is None and record.logical_name != GROUP
    }
    for member in world.store.read_records(f"{STACK}/{GROUP}"):
        if member.replaced_by is None:
            found[f"{GROUP}.{member.logical_name}"] = (member.physical_id, member.properties)
    return found


def _what_apply_did(before: dict[str, Any], after: dict[str, Any]) -> dict[str, str]:
    actions: dict[str, str] = {}
    for path in before.keys() | after.keys():
        if path not in before:
            actions[path] = "create"
        elif path not in after:
            actions[path] = "delete"
        elif before[path][0] != after[path][0]:
            actions[path] = "replace"
        elif before[path][1] != after[path][1]:
            actions[path] = "update"
    return actions


def _loaded(world: World) -> StackDefinition:
    blocks = StoredBlocks(world.store.template_blocks())  # parsed by blocks: text digests for memos
    return load_stack(DirectorySource(world.repo_dir), "stack.yaml", stack_name=STACK, blocks=blocks)


def _what_the_plan_says(world: World) -> dict[str, str]:
    """The plan's action per path; the same whether or not it reads the recorded inputs digests
    (which let it decide a resource unchanged without resolving it), and whether or not it reads
    the plan memo kept at these records (which lets it read neither records nor digests)."""
    definition = _loaded(world)
    rules = CloudRoot(world.clock, sim=world.sim).for_cloud("sim")
    recorded = recorded_for_plan(world.store.read_compared_records(STACK))
    resolved = {name: dataclasses.replace(record, inputs_digest=None) for name, record in recorded.items()}
    memo = world.store.plan_memos().read(STACK).content
    by_memo, settled = records_for_plan(world.store, STACK, definition)
    telling = memo is not None and settled_by_memo(definition, memo) is not None
    assert isinstance(by_memo, FetchedRecords) == telling  # the memo read whenever it tells anything
    said = []
    for records, known in ((recorded, None), (resolved, None), (by_memo, settled)):
        plan = plan_stack(
            definition, records, rules, stack=STACK, nested=StoredRecords(world.store), settled=known
        )
        entries = planned_actions(plan, definition)
        said.append(
            {
                entry.resource: action
                for action in ACTIONS
                for entry in getattr(entries, action)
                if entry.resource != GROUP
            }
        )
    assert said[0] == said[1] == said[2]
    return said[0]


def _plan_then_apply(world: World, model: StackModel) -> None:
    world.commit({"stack.yaml": model.template()})
    planned = _what_the_plan_says(world)
    before = _recorded(world)
    world.submit(STACK, "stack.yaml")
    report = world.converge(STACK)[STACK]
    assert report.status is StackStatus.CONVERGED, (report.failures, model.template())
    assert planned == _what_apply_did(before, _recorded(world)), model.template()
    records_for_plan(world.store, STACK, _loaded(world))  # the converged commit's plan keeps its memo


def _changes(data: st.DataObject, first: StackModel, steps: int) -> list[StackModel]:
    models = [first]
    for _ in range(steps):
        models.append(data.draw(changed_models(models[-1])))
    return models


def _check(data: st.DataObject, root: Path, steps: int) -> None:
    world = World(root, f"sqlite:///{root / 'state.sqlite'}")
    try:
        for model in _changes(data, data.draw(stack_models()), steps):
            _plan_then_apply(world, model)
    finally:
        world.close()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_plan_names_the_action_apply_takes_for_every_resource(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check(data, tmp_path_factory.mktemp("drawn"), steps=3)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_plan_names_the_action_apply_takes_for_every_resource_at_length(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check(data, tmp_path_factory.mktemp("drawn"), steps=5)
