"""Template resources, groups, chains and OS::Heat::Stack: nested definitions and their attributes."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest
import yaml

from reconciler.templates import (
    MemberValues,
    MemorySource,
    ResourceDefinition,
    StackDefinition,
    TemplateError,
    load_stack,
    nested_attribute,
)

from .snippets import ReadyCloud

HEADER = {"heat_template_version": "2018-08-31"}
SERVER = {
    **HEADER,
    "parameters": {"name": {"type": "string"}, "size": {"type": "number", "default": 1}},
    "resources": {
        "port": {"type": "OS::Neutron::Port", "properties": {"network": "private"}},
        "server": {
            "type": "OS::Nova::Server",
            "properties": {
                "name": {"get_param": "name"},
                "flavor": "m1.small",
                "networks": [{"port": {"get_resource": "port"}}],
            },
        },
        "meta": {"type": "OS::Heat::Value", "properties": {"value": {"resource_facade": "metadata"}}},
    },
    "outputs": {"ip": {"value": {"get_attr": ["server", "first_address"]}}},
}


def _load(top: dict[str, Any], environment: dict[str, Any] | None = None) -> StackDefinition:
    files = {"stacks/top.yaml": yaml.safe_dump(top), "stacks/lib/server.yaml": yaml.safe_dump(SERVER)}
    environments = []
    if environment is not None:
        files["env/common.yaml"] = yaml.safe_dump(environment)
        environments = ["env/common.yaml"]
    return load_stack(MemorySource(files), "stacks/top.yaml", environments)


def test_template_resource_by_path_becomes_a_nested_stack() -> None:
    top = {
        **HEADER,
        "resources": {
            "web": {"type": "lib/server.yaml", "properties": {"name": "w"}, "metadata": {"role": "web"}}
        },
    }
    definition = _load(top)
    web = definition.resources["web"]
    assert (web.nested_kind, web.template_file) == ("template", "stacks/lib/server.yaml")
    nested = definition.nested("web", definition.resolve_properties("web", ReadyCloud()))
    assert nested is not None
    assert dict(nested.parameters) == {"name": "w", "size": 1}
    assert nested.graph()["server"] == frozenset({"port"})
    assert nested.resolve_properties("meta", ReadyCloud()) == {"value": {"role": "web"}}
    assert definition.input_files == frozenset({"stacks/top.yaml", "stacks/lib/server.yaml"})


def test_registry_maps_a_type_to_a_file_relative_to_the_environment() -> None:
    top = {**HEADER, "resources": {"web": {"type": "My::Server", "properties": {"name": "w"}}}}
    definition = _load(top, {"resource_registry": {"My::Server": "../stacks/lib/server.yaml"}})
    assert definition.resources["web"].template_file == "stacks/lib/server.yaml"


def test_unknown_property_of_a_template_resource_is_an_error() -> None:
    top = {**HEADER, "resources": {"web": {"type": "lib/server.yaml", "properties": {"nam": "w"}}}}
    with pytest.raises(TemplateError, match="Unknown Property nam"):
        _load(top)


def _group(count: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    properties = {
        "count": count,
        "resource_def": {"type": "lib/server.yaml", "properties": {"name": "node-%index%"}},
    }
    return {
        **HEADER,
        "resources": {
            "nodes": {"type": "OS::Heat::ResourceGroup", "properties": {**properties, **(extra or {})}}
        },
    }


def test_a_million_member_group_is_produced_lazily() -> None:
    definition = _load(_group(1_000_000))
    tracemalloc.start()
    group = definition.nested("nodes", definition.resolve_properties("nodes", ReadyCloud()))
    assert group is not None
    assert len(group.resources) == 1_000_000
    assert "999999" in group.resources and "1000000" not in group.resources
    member = group.resources["999999"]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert member.properties == {"name": "node-999999"}
    assert group.graph()["5"] == frozenset()
    assert peak < 5_000_000  # bytes: nothing per member was built
    nested = group.nested("999999", group.resolve_properties("999999", ReadyCloud()))
    assert nested is not None and nested.parameters["name"] == "node-999999"


def test_removal_policies_skip_removed_member_names() -> None:
    definition = _load(_group(3, {"removal_policies": [{"resource_list": ["1"]}]}))
    group = definition.nested("nodes", definition.resolve_properties("nodes", ReadyCloud()))
    assert group is not None and list(group.resources) == ["0", "2", "3"]


def test_chain_members_depend_on_the_previous_one() -> None:
    top = {
        **HEADER,
        "resources": {
            "chain": {
                "type": "OS::Heat::ResourceChain",
                "properties": {"resources": ["OS::Heat::None", "OS::Heat::None", "OS::Heat::None"]},
            }
        },
    }
    definition = _load(top)
    chain = definition.nested("chain", definition.resolve_properties("chain", ReadyCloud()))
    assert chain is not None
    assert {name: set(deps) for name, deps in chain.graph().items()} == {"0": set(), "1": {"0"}, "2": {"1"}}


def test_autoscaling_group_uses_desired_capacity_or_min_size() -> None:
    resource = {"type": "lib/server.yaml", "properties": {"name": "a"}}
    top = {
        **HEADER,
        "resources": {
            "asg": {
                "type": "OS::Heat::AutoScalingGroup",
                "properties": {"min_size": 2, "max_size": 5, "resource": resource},
            }
        },
    }
    definition = _load(top)
    group = definition.nested("asg", definition.resolve_properties("asg", ReadyCloud()))
    assert group is not None and list(group.resources) == ["0", "1"]
    assert group.resources["1"].nested_kind == "template"


def test_heat_stack_resource_nests_its_inline_template() -> None:
    inline = yaml.safe_dump(
        {**HEADER, "parameters": {"x": {"type": "string"}}, "resources": {"v": {"type": "OS::Heat::None"}}}
    )
    top = {
        **HEADER,
        "resources": {
            "s": {"type": "OS::Heat::Stack", "properties": {"template": inline, "parameters": {"x": "1"}}}
        },
    }
    definition = _load(top)
    nested = definition.nested("s", definition.resolve_properties("s", ReadyCloud()))
    assert nested is not None and nested.parameters["x"] == "1" and list(nested.resources) == ["v"]


def test_plain_resources_have_no_nested_stack() -> None:
    assert _load({**HEADER, "resources": {"n": {"type": "OS::Heat::None"}}}).nested("n", {}) is None


GROUP = ResourceDefinition(
    name="g", type="OS::Heat::ResourceGroup", properties={}, depends_on=frozenset(), nested_kind="group"
)
TEMPLATE = ResourceDefinition(
    name="t", type="My::T", properties={}, depends_on=frozenset(), nested_kind="template"
)
MEMBERS = {
    "0": MemberValues("id0", {"ip": "10.0.0.1", "net": {"a": [1, 2]}}),
    "1": MemberValues("id1", {"ip": "10.0.0.2", "net": {"a": [3, 4]}}),
}
ATTRIBUTES = [
    ("refs", GROUP, "refs", (), ["id0", "id1"]),
    ("refs_map", GROUP, "refs_map", (), {"0": "id0", "1": "id1"}),
    ("member id", GROUP, "resource.1", (), "id1"),
    ("member attribute", GROUP, "resource.0.ip", (), "10.0.0.1"),
    ("member attribute path", GROUP, "resource.0.net", ("a", 1), 2),
    ("every member's attribute", GROUP, "ip", (), ["10.0.0.1", "10.0.0.2"]),
    ("path applies per member", GROUP, "net", ("a", 0), [1, 3]),
    ("attributes per member", GROUP, "attributes", ("ip",), {"0": "10.0.0.1", "1": "10.0.0.2"}),
    ("outputs_list", GROUP, "outputs_list", ("ip",), ["10.0.0.1", "10.0.0.2"]),
    ("current_size", GROUP, "current_size", (), 2),
    ("template output", TEMPLATE, "ip", (), "10.0.0.1"),
    ("template stack id", TEMPLATE, "OS::stack_id", (), "id0"),
]


@pytest.mark.parametrize(
    ("resource", "name", "path", "expected"), [r[1:] for r in ATTRIBUTES], ids=[r[0] for r in ATTRIBUTES]
)
def test_nested_attributes_follow_heat(
    resource: ResourceDefinition, name: str, path: tuple[Any, ...], expected: Any
) -> None:
    members = MEMBERS if resource.nested_kind == "group" else {"": MEMBERS["0"]}
    assert nested_attribute(resource, members, name, path) == expected


def test_get_attr_path_on_a_group_applies_to_each_member() -> None:
    top = _group(2)
    top["outputs"] = {"firsts": {"value": {"get_attr": ["nodes", "net", "a", 0]}}}
    definition = _load(top)

    class GroupCloud(ReadyCloud):
        def attribute(self, resource: str, name: str) -> Any:
            return nested_attribute(definition.resources[resource], MEMBERS, name)

    assert definition.resolve_output("firsts", GroupCloud()) == [1, 3]


def test_literal_property_values_must_fit_the_nested_parameters() -> None:
    top = {
        **HEADER,
        "resources": {"web": {"type": "lib/server.yaml", "properties": {"name": "w", "size": "big"}}},
    }
    with pytest.raises(TemplateError, match="Resource web: property size: Value 'big' is not a number"):
        _load(top)


def test_warnings_of_nested_templates_travel_on_the_definition() -> None:
    nested = {"heat_template_version": "2015-04-30", "outputs": {"o": {"value": {"str_split": [",", "a"]}}}}
    files = {
        "top.yaml": yaml.safe_dump({**HEADER, "resources": {"n": {"type": "nested.yaml"}}}),
        "nested.yaml": yaml.safe_dump(nested),
    }
    (warning,) = load_stack(MemorySource(files), "top.yaml").warnings
    assert warning.file == "nested.yaml" and '"str_split" is plain data' in warning.message


def test_a_group_count_that_is_not_a_number_is_located() -> None:
    definition = _load(_group(1))
    with pytest.raises(TemplateError) as raised:
        definition.nested("nodes", {"count": "many", "resource_def": {"type": "OS::Heat::None"}})
    problem = raised.value.problems[0]
    assert (problem.file, problem.line > 0) == ("stacks/top.yaml", True)
    assert "count must be an integer, not 'many'" in problem.message
