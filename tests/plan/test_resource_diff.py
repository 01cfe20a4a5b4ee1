"""plan_resource: create, update in place, replace with the names forcing it, or leave alone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from reconciler.plan import Action, RecordedResource, plan_resource
from reconciler.plan.property_digest import properties_digest


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


class Unread(Mapping[str, Any]):
    """Recorded properties a decision must not need: reading them fails the test."""

    def __getitem__(self, key: str) -> Any:
        raise AssertionError("the recorded properties were read")

    def __iter__(self) -> Any:
        raise AssertionError("the recorded properties were read")

    def __len__(self) -> int:
        raise AssertionError("the recorded properties were read")


def test_a_recorded_digest_equal_to_the_desired_one_decides_unchanged_without_reading_the_record() -> None:
    record = recorded(properties=Unread(), properties_digest=properties_digest(APPLIED))

    plan = plan_resource(
        "web", SERVER, {"metadata": {"a": 1}, "image": "cirros", "name": "web"}, record, ServerRules()
    )

    assert plan.action is Action.UNCHANGED


DIGEST_CASES = [
    (
        "a digest of other values",
        properties_digest({"name": "old"}),
        {**APPLIED, "name": "web2"},
        Action.UPDATE,
    ),
    ("no digest recorded (written before digests)", None, {**APPLIED, "name": "web2"}, Action.UPDATE),
    (
        "a digest differing only as JSON writes numbers",
        properties_digest(APPLIED),
        {**APPLIED, "metadata": {"a": 1.0}},
        Action.UNCHANGED,
    ),
    ("a failed resource, digest equal", properties_digest(APPLIED), APPLIED, Action.REPLACE),
]


@pytest.mark.parametrize(
    ("case", "digest", "desired", "action"), DIGEST_CASES, ids=[case[0] for case in DIGEST_CASES]
)
def test_a_digest_that_differs_or_is_missing_falls_back_to_comparing_the_properties(
    case: str, digest: str | None, desired: dict[str, Any], action: Action
) -> None:
    record = recorded(properties_digest=digest, failed=case.startswith("a failed"))

    assert plan_resource("web", SERVER, desired, record, ServerRules()).action is action


def test_values_json_cannot_hold_have_no_digest() -> None:
    assert properties_digest({"name": object()}) is None
    assert properties_digest({"b": [1, {"y": 2, "x": None}], "a": "é"}) == properties_digest(
        {"a": "é", "b": [1, {"x": None, "y": 2}]}
    )
