"""A ResourceGroup's removal list, resolved as Heat resolves its name list, case by case.

Each case: the names removed before (None: the group was never made), the entries written now,
the mode, the members there now (each member N's reference is "id-N"), and the names removed after.
"""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.templates.nesting import removed_members
from reconciler.templates.removal_policies import with_removed_names

MEMBERS = ["0", "1", "3"]
CASES: list[tuple[str, list[str] | None, list[Any], str, list[str], list[str]]] = [
    ("nothing listed, nothing removed", None, [], "append", [], []),
    ("nothing listed, names removed stay removed", ["0", "1", "2"], [], "append", [], ["0", "1", "2"]),
    ("an entry naming no member is ignored", ["1", "3"], ["6"], "append", MEMBERS, ["1", "3"]),
    ("a reference naming no member is ignored", ["0", "1"], ["id-7"], "append", MEMBERS, ["0", "1"]),
    ("a member's name is added", ["0", "1"], ["3"], "append", MEMBERS, ["0", "1", "3"]),
    ("a member's reference adds its name", ["0", "1"], ["id-3"], "append", MEMBERS, ["0", "1", "3"]),
    ("update mode starts from what is written", ["0", "1"], ["id-3"], "update", MEMBERS, ["3"]),
    ("update mode with nothing written frees the names", ["1"], [], "update", ["0", "1", "2"], []),
    ("before the group is made, entries are names", None, ["2", 5], "append", [], ["2", "5"]),
]


def _recorded(removed: list[str] | None) -> dict[str, Any] | None:
    return None if removed is None else {"count": 3, "removal_policies": [{"resource_list": removed}]}


@pytest.mark.parametrize(
    ("before", "written", "mode", "members", "after"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_names_removed_follow_heat(
    before: list[str] | None, written: list[Any], mode: str, members: list[str], after: list[str]
) -> None:
    desired = {"count": 3, "removal_policies": [{"resource_list": written}], "removal_policies_mode": mode}
    references: dict[str, str | None] = {name: f"id-{name}" for name in members}

    resolved = with_removed_names(desired, _recorded(before), references)

    assert removed_members(resolved) == after
    assert resolved["count"] == 3 and resolved["removal_policies_mode"] == mode


def test_a_group_without_removal_policies_keeps_its_properties_as_written() -> None:
    assert with_removed_names({"count": 2}, {"count": 2}, {"0": "id-0"}) == {"count": 2}
