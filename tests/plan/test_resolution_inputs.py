"""Resources decided unchanged by the digest of what they were resolved from, without resolving
them: only when nothing that digest covers, nor anything they require, changes."""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from reconciler.plan import Action, RecordedResource, plan_stack
from reconciler.plan.resolution_inputs import reads_attributes, resource_inputs, stack_inputs
from reconciler.templates import DirectorySource, StackDefinition, load_stack
from tests.plan.test_resource_diff import Unread
from tests.plan.test_stack_plan import RECORDED, TEMPLATE, Rules

CURRENT = {name: RECORDED[name] for name in ("net", "server", "label")}


def definition_of(tmp_path: Path, template: str = TEMPLATE, **parameters: Any) -> StackDefinition:
    (tmp_path / "stack.yaml").write_text(textwrap.dedent(template))
    return load_stack(DirectorySource(tmp_path), "stack.yaml", parameters=parameters)


def as_applied(
    definition: StackDefinition, records: Mapping[str, RecordedResource]
) -> dict[str, RecordedResource]:
    """`records` with the inputs digest apply records beside properties resolved from `definition`."""
    shared = stack_inputs(definition)
    assert shared is not None

    def physical_id(name: str) -> str | None:
        return records[name].physical_id

    return {
        name: dataclasses.replace(
            record,
            inputs_digest=resource_inputs(
                shared,
                definition.resources[name].type,
                definition.resources[name].properties,
                definition.graph()[name],
                physical_id,
            ),
        )
        for name, record in records.items()
    }


def unread(records: Mapping[str, RecordedResource]) -> dict[str, RecordedResource]:
    return {name: dataclasses.replace(record, properties=Unread()) for name, record in records.items()}


def actions(definition: StackDefinition, records: Mapping[str, RecordedResource]) -> dict[str, Action]:
    return {plan.name: plan.action for plan in plan_stack(definition, records, Rules()).resources}


def test_resources_resolved_from_the_recorded_inputs_are_unchanged_without_reading_their_properties(
    tmp_path: Path,
) -> None:
    definition = definition_of(tmp_path)
    records = unread(as_applied(definition, CURRENT))
    assert actions(definition, records) == dict.fromkeys(CURRENT, Action.UNCHANGED)


def test_a_changed_parameter_has_every_resource_resolved_and_compared(tmp_path: Path) -> None:
    records = as_applied(definition_of(tmp_path), CURRENT)
    changed = definition_of(tmp_path, name="db")
    assert actions(changed, records) == {
        "net": Action.UNCHANGED,
        "server": Action.UPDATE,
        "label": Action.UNCHANGED,
    }


def test_a_changed_line_has_that_resource_resolved_and_the_others_not(tmp_path: Path) -> None:
    records = as_applied(definition_of(tmp_path), CURRENT)
    records = {**records, **unread({"net": records["net"]})}
    changed = definition_of(tmp_path, TEMPLATE.replace("flavor: m1.small", "flavor: m1.large"))
    assert actions(changed, records) == {
        "net": Action.UNCHANGED,
        "server": Action.REPLACE,
        "label": Action.UPDATE,  # reads the id of the server being replaced
    }


def test_what_requires_a_resource_being_replaced_is_resolved_whatever_its_digest(tmp_path: Path) -> None:
    definition = definition_of(tmp_path)
    records = as_applied(definition, CURRENT)
    records["server"] = dataclasses.replace(records["server"], failed=True)
    assert actions(definition, records) == {
        "net": Action.UNCHANGED,
        "server": Action.REPLACE,
        "label": Action.UPDATE,
    }


def test_a_resource_requiring_one_with_another_physical_id_is_resolved(tmp_path: Path) -> None:
    definition = definition_of(tmp_path)
    records = as_applied(definition, CURRENT)
    records["server"] = dataclasses.replace(records["server"], physical_id="s-2")
    assert actions(definition, records)["label"] is Action.UPDATE


def test_a_stack_with_hidden_parameters_has_no_inputs_digests(tmp_path: Path) -> None:
    hidden = TEMPLATE.replace(
        "name: {type: string, default: web}", "name: {type: string, default: web, hidden: true}"
    )
    assert stack_inputs(definition_of(tmp_path, hidden)) is None


@pytest.mark.parametrize(
    ("snippet", "reads"),
    [
        ({"name": "web"}, False),
        ({"network": {"get_resource": "net"}}, False),
        ({"name": {"list_join": ["-", [{"get_attr": ["token", "value"]}]]}}, True),
        ({"networks": [{"fixed_ip": {"Fn::GetAtt": ["port", "ip"]}}]}, True),
    ],
)
def test_a_snippet_reading_attributes_is_told(snippet: Any, reads: bool) -> None:
    assert reads_attributes(snippet) is reads
