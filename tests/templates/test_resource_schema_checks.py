"""validate against the resource type schemas: types, properties, values and attributes, as Heat."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.templates import TemplateError

from .snippets import load_template

ROCKY = "2018-08-31"


def _template(resources: dict[str, Any], outputs: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"heat_template_version": ROCKY, "resources": resources, "outputs": outputs or {}}


def _problems(template: dict[str, Any]) -> list[str]:
    with pytest.raises(TemplateError) as raised:
        load_template(template)
    assert all(problem.line > 0 for problem in raised.value.problems)
    return [problem.message for problem in raised.value.problems]


SERVER = {"type": "OS::Nova::Server", "properties": {"flavor": "m1.small"}}

REFUSED = [
    ("unknown type", {"r": {"type": "OS::Foo::Bar"}}, "The Resource Type (OS::Foo::Bar) could not be found."),
    (
        "unknown property",
        {"r": {"type": "OS::Nova::Server", "properties": {"flavor": "f", "bogus": 1}}},
        "Property error: resources.r.properties: Unknown Property bogus",
    ),
    (
        "missing required property",
        {"r": {"type": "OS::Nova::Server", "properties": {"name": "n"}}},
        "Property error: resources.r.properties: Property flavor not assigned",
    ),
    (
        "wrong type",
        {"r": {"type": "OS::Cinder::Volume", "properties": {"size": "large"}}},
        "Property error: resources.r.properties.size: Value 'large' is not an integer",
    ),
    (
        "outside a range",
        {"r": {"type": "OS::Heat::RandomString", "properties": {"length": 0}}},
        "Property error: resources.r.properties.length: 0 is out of range (min: 1, max: 512)",
    ),
    (
        "not an allowed value",
        {"r": {"type": "OS::Neutron::Subnet", "properties": {"network": "n", "ip_version": 5}}},
        '"5" is not an allowed value [4, 6]',
    ),
    (
        "a list where a map belongs",
        {"r": {"type": "OS::Heat::StructuredConfig", "properties": {"config": ["a"]}}},
        "\"['a']\" is not a map",
    ),
    (
        "a deprecated name beside its replacement",
        {"r": {"type": "OS::Neutron::Port", "properties": {"network": "a", "network_id": "b"}}},
        "Cannot define the following properties at the same time: network, network_id",
    ),
    (
        "a group member of an unknown type",
        {"g": {"type": "OS::Heat::ResourceGroup", "properties": {"resource_def": {"type": "OS::Foo::Bar"}}}},
        "The Resource Type (OS::Foo::Bar) could not be found.",
    ),
]


@pytest.mark.parametrize(("resources", "expected"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_refusals_carry_heats_message_and_a_line(resources: dict[str, Any], expected: str) -> None:
    assert any(expected in message for message in _problems(_template(resources)))


def test_an_attribute_the_type_lacks_is_refused_where_it_is_read() -> None:
    problems = _problems(_template({"s": SERVER}, {"o": {"value": {"get_attr": ["s", "no_such"]}}}))
    assert problems == ["The Referenced Attribute (s no_such) is incorrect."]


ACCEPTED = [
    (
        "a deprecated name alone is translated",
        {"p": {"type": "OS::Neutron::Port", "properties": {"network_id": "n"}}},
    ),
    (
        "values from functions are checked only once known",
        {"v": {"type": "OS::Cinder::Volume", "properties": {"size": {"get_param": "OS::project_id"}}}},
    ),
    (
        "a type Heat knows but no provider serves",
        {
            "z": {
                "type": "OS::Neutron::Segment",
                "properties": {"network": "private", "network_type": "vlan"},
            }
        },
    ),
    ("a placeholder accepts any property", {"n": {"type": "OS::Heat::None", "properties": {"anything": 1}}}),
    (
        "Heat's global environment maps old names",
        {"q": {"type": "OS::Quantum::Net", "properties": {"name": "n"}}},
    ),
    (
        "an external resource is not checked for properties",
        {"x": {"type": "OS::Nova::Server", "external_id": "abc"}},
    ),
    ("integers given as strings", {"v": {"type": "OS::Cinder::Volume", "properties": {"size": "10"}}}),
]


@pytest.mark.parametrize("resources", [r[1] for r in ACCEPTED], ids=[r[0] for r in ACCEPTED])
def test_what_heat_accepts_is_valid(resources: dict[str, Any]) -> None:
    assert set(load_template(_template(resources)).resources) == set(resources)


def test_open_attributes_of_groups_and_deployments_are_not_checked() -> None:
    resources = {
        "g": {"type": "OS::Heat::ResourceGroup", "properties": {"resource_def": SERVER}},
        "d": {"type": "OS::Heat::SoftwareDeployment", "properties": {"server": "s"}},
    }
    outputs = {
        "a": {"value": {"get_attr": ["g", "resource.0.first_address"]}},
        "b": {"value": {"get_attr": ["d", "my_output"]}},
    }
    assert set(load_template(_template(resources, outputs)).outputs) == {"a", "b"}


def test_an_environment_mapping_makes_an_unknown_type_valid() -> None:
    from reconciler.templates import MemorySource, load_stack

    source = MemorySource(
        {
            "t.yaml": "heat_template_version: 2018-08-31\nresources:\n  r: {type: My::Thing}\n",
            "env.yaml": "resource_registry:\n  My::Thing: OS::Heat::None\n",
        }
    )
    assert load_stack(source, "t.yaml", ["env.yaml"]).resources["r"].type == "OS::Heat::None"
