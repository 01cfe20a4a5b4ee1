"""`get_attr` on groups, template resources and OS::Heat::Stack: each expression gives Heat's value.

The expected values follow Heat's `ResourceGroup.get_attribute`, `TemplateResource` and
`OS::Heat::Stack` (remote_stack): `resource.N` is member N's own reference (`get_resource` of it,
so a template member's `OS::stack_id` output when it has one); `[group, resource.N, attr, ...]` is
member N's attribute `attr`; `attributes` needs an attribute name; Heat answers `refs_map` and
`removed_rsrc_list` from the group's own data, with no path applied.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from reconciler.templates import MemberValues, MemorySource, StackDefinition, load_stack, nested_attribute
from reconciler.templates.errors import FunctionError

MEMBERS = {
    "0": MemberValues("stack-0", {"OS::stack_id": "server-0", "ip": "10.0.0.1", "net": {"a": [1, 2]}}),
    "2": MemberValues("stack-2", {"OS::stack_id": "server-2", "ip": "10.0.0.3", "net": {"a": [5, 6]}}),
}
SOLO = MemberValues("stack-solo", {"ip": "10.0.0.9", "net": {"a": [7]}})
REMOTE = MemberValues("top/inline", {"x": "hello", "deep": {"list": [1, 2]}})

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "nodes": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 2,
                "removal_policies": [{"resource_list": ["1"]}],
                "resource_def": {"type": "node.yaml"},
            },
        },
        "solo": {"type": "node.yaml"},
        "inline": {
            "type": "OS::Heat::Stack",
            "properties": {"template": "heat_template_version: 2018-08-31\n"},
        },
    },
}
NODE = {"heat_template_version": "2018-08-31", "outputs": {"ip": {"value": "x"}, "net": {"value": "y"}}}

CASES: list[tuple[str, list[Any], Any]] = [
    ("member reference", ["nodes", "resource.0"], "server-0"),
    ("member attribute", ["nodes", "resource.2.ip"], "10.0.0.3"),
    ("member attribute with a path", ["nodes", "resource.0.net", "a", 1], 2),
    ("member attribute named in the path", ["nodes", "resource.2", "ip"], "10.0.0.3"),
    ("member attribute named in the path, then a path", ["nodes", "resource.2", "net", "a", 0], 5),
    ("refs", ["nodes", "refs"], ["server-0", "server-2"]),
    ("refs with a path", ["nodes", "refs", 1], "server-2"),
    ("refs_map", ["nodes", "refs_map"], {"0": "server-0", "2": "server-2"}),
    ("refs_map takes no path", ["nodes", "refs_map", "0"], {"0": "server-0", "2": "server-2"}),
    ("attributes of one name", ["nodes", "attributes", "ip"], {"0": "10.0.0.1", "2": "10.0.0.3"}),
    ("attributes with a path", ["nodes", "attributes", "net", "a", 0], {"0": 1, "2": 5}),
    ("removed_rsrc_list", ["nodes", "removed_rsrc_list"], ["1"]),
    ("a plain attribute over the members", ["nodes", "ip"], ["10.0.0.1", "10.0.0.3"]),
    ("a plain attribute's path per member", ["nodes", "net", "a", 1], [2, 6]),
    ("template resource output", ["solo", "ip"], "10.0.0.9"),
    ("template resource output with a path", ["solo", "net", "a", 0], 7),
    ("template resource stack id", ["solo", "OS::stack_id"], "stack-solo"),
    ("OS::Heat::Stack output", ["inline", "outputs", "x"], "hello"),
    ("OS::Heat::Stack output with a path", ["inline", "outputs", "deep", "list", 1], 2),
    ("OS::Heat::Stack outputs", ["inline", "outputs"], {"x": "hello", "deep": {"list": [1, 2]}}),
    ("OS::Heat::Stack name", ["inline", "stack_name"], "top/inline"),
]


class NestedCloud:
    """Every nested stack converged: the members and outputs above."""

    def __init__(self, definition: StackDefinition) -> None:
        self.definition = definition

    def physical_id(self, resource: str) -> str:
        return str(self._members(resource)[""].reference) if resource != "nodes" else "top/nodes"

    def attribute(self, resource: str, name: str) -> Any:
        removed = ["1"] if resource == "nodes" else ()
        return nested_attribute(
            self.definition.resources[resource], self._members(resource), name, removed=removed
        )

    def _members(self, resource: str) -> dict[str, MemberValues]:
        return {"nodes": MEMBERS, "solo": {"": SOLO}, "inline": {"": REMOTE}}[resource]


def _resolved(expression: list[Any]) -> Any:
    top = {**TEMPLATE, "outputs": {"it": {"value": {"get_attr": expression}}}}
    files = {"top.yaml": yaml.safe_dump(top), "node.yaml": yaml.safe_dump(NODE)}
    definition = load_stack(MemorySource(files), "top.yaml")
    return definition.resolve_output("it", NestedCloud(definition))


@pytest.mark.parametrize(("expression", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_get_attr_gives_heats_value(expression: list[Any], expected: Any) -> None:
    assert _resolved(expression) == expected


def test_attributes_without_an_attribute_name_is_refused_as_heat_refuses_it() -> None:
    with pytest.raises(FunctionError, match="attributes"):
        _resolved(["nodes", "attributes"])
