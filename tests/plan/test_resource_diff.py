"""plan_resource: create, update in place, replace with the names forcing it, or leave alone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from reconciler.plan import Action, RecordedResource, plan_resource


class ServerRules:
    """`name` and `metadata` change in place; anything else replaces (like OS::Nova::Server)."""

    IN_PLACE = frozenset({"name", "metadata"})

    def replace_reasons(
        self, type_name: str, changed: frozenset[str], desired: Mapping[str, Any]
    ) -> frozenset[str]:
        return changed - self.IN_PLACE


SERVER = "OS::Nova::Server"
APPLIED = {"name": "web", "image": "cirros", "metadata": {"a": 1}}


def recorded(**changes: Any) -> RecordedResource:
    fields: dict[str, Any] = {"name": "web", "type": SERVER, "physical_id": "p-1", "properties": APPLIED}
    fields.update(changes)
    return RecordedResource(**fields)


CASES = [
    ("nothing recorded", None, APPLIED, Action.CREATE, set()),
    ("recorded without a physical id", recorded(physical_id=None), APPLIED, Action.CREATE, set()),
    ("same properties", recorded(), dict(APPLIED), Action.UNCHANGED, set()),
    ("in-place name change", recorded(), {**APPLIED, "name": "web2"}, Action.UPDATE, set()),
    ("metadata removed", recorded(), {"name": "web", "image": "cirros"}, Action.UPDATE, set()),
    ("image change replaces", recorded(), {**APPLIED, "image": "fedora"}, Action.REPLACE, {"image"}),
    (
        "mixed change replaces for the image only",
        recorded(),
        {**APPLIED, "image": "fedora", "name": "x"},
        Action.REPLACE,
        {"image"},
    ),
    ("type change replaces", recorded(type="OS::Heat::None"), APPLIED, Action.REPLACE, {"type"}),
    ("failed resource is replaced", recorded(failed=True), APPLIED, Action.REPLACE, {"status"}),
]


@pytest.mark.parametrize(
    ("case", "record", "desired", "action", "reasons"), CASES, ids=[case[0] for case in CASES]
)
def test_plan_resource(
    case: str, record: RecordedResource | None, desired: dict[str, Any], action: Action, reasons: set[str]
) -> None:
    plan = plan_resource("web", SERVER, desired, record, ServerRules())
    assert plan.action is action
    assert plan.replace_reasons == reasons
