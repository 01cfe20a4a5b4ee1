"""A load that reuses the yields of a template's last clean load gives exactly what a fresh load of
the same inputs gives: the same resources, dependencies, parsed properties, outputs and warnings,
and every problem with its file and line, whatever changed in between (a resource's text, the
parameters, a referenced resource's name or type, the environment), in YAML and in JSON written
one resource per line."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from reconciler.templates import MemoryBlockKeeper, MemorySource, StackDefinition, TemplateError, load_stack

HEAD = "heat_template_version: 2018-08-31\n"
PARAMETERS = (
    "parameters:\n  image: {type: string, default: cirros}\n  size: {type: number, default: 1}\n"
    "  wide: {type: boolean, default: false}\n"
)
CONDITIONS = "conditions:\n  is_wide: {get_param: wide}\n"
OUTPUTS = "outputs:\n  first_port: {value: {get_attr: [port0, fixed_ips]}}\n"


def node(index: int, *, server_name: str | None = None, network: str = "net") -> dict[str, Any]:
    """A port, a server on it, a volume sized by a parameter and a value reading the server."""
    return {
        f"port{index}": {"type": "OS::Neutron::Port", "properties": {"network": {"get_resource": network}}},
        f"server{index}": {
            "type": "OS::Nova::Server",
            "properties": {
                "name": server_name or f"node-{index}",
                "image": {"get_param": "image"},
                "flavor": "m1.small",
                "networks": [{"port": {"get_resource": f"port{index}"}}],
            },
        },
        f"volume{index}": {"type": "OS::Cinder::Volume", "properties": {"size": {"get_param": "size"}}},
        f"value{index}": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"get_attr": [f"server{index}", "first_address"]}},
        },
    }


def resources(count: int = 6, **changes: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"net": {"type": "OS::Neutron::Net"}}
    for index in range(count):
        found.update(node(index))
    for name, body in changes.items():
        if body is None:
            found.pop(name, None)
        else:
            found[name] = body
    return found


def as_yaml(bodies: dict[str, Any]) -> str:
    lines = [HEAD, PARAMETERS, CONDITIONS, "resources:\n"]
    lines += [f"  {name}: {json.dumps(body)}\n" for name, body in bodies.items()]
    return "".join([*lines, OUTPUTS])


def as_json(bodies: dict[str, Any]) -> str:
    lines = [f"  {json.dumps(name)}: {json.dumps(body)}" for name, body in bodies.items()]
    head = {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "image": {"type": "string", "default": "cirros"},
            "size": {"type": "number", "default": 1},
            "wide": {"type": "boolean", "default": False},
        },
        "conditions": {"is_wide": {"get_param": "wide"}},
        "outputs": {"first_port": {"value": {"get_attr": ["port0", "fixed_ips"]}}},
    }
    return json.dumps(head)[:-1] + ', "resources": {\n' + ",\n".join(lines) + "\n}}\n"


FORMATS = {"yaml": as_yaml, "json": as_json}


def shape(definition: StackDefinition) -> dict[str, Any]:
    """Everything a load yields that plans, applies and reports read."""
    return {
        "order": list(definition.resources),
        "resources": dict(definition.resources),
        "printed": [repr(resource) for resource in definition.resources.values()],
        "parsed": {name: definition.parsed_properties(name) for name in definition.resources},
        "graph": dict(definition.graph()),
        "outputs": dict(definition.outputs),
        "parsed_outputs": {name: definition.parsed_output(name) for name in definition.outputs},
        "parameters": dict(definition.parameters),
        "warnings": definition.warnings,
        "digest": definition.digest(),
        "input_files": definition.input_files,
    }


def outcome(files: dict[str, str], keeper: MemoryBlockKeeper | None, **inputs: Any) -> Any:
    """The load's yield, or its problems when it refuses the template."""
    environments = [name for name in sorted(files) if name.startswith("env")]
    try:
        return shape(load_stack(MemorySource(files), "t.yaml", environments, blocks=keeper, **inputs))
    except TemplateError as error:
        return error.problems


def reused_and_fresh(
    before: dict[str, str], after: dict[str, str], before_inputs: dict[str, Any], after_inputs: dict[str, Any]
) -> tuple[Any, Any]:
    """Load `after` with the yields of a clean load of `before` kept, and load it fresh."""
    keeper = MemoryBlockKeeper()
    first = outcome(before, keeper, **before_inputs)
    assert isinstance(first, dict), first
    return outcome(after, keeper, **after_inputs), outcome(after, None, **after_inputs)


CHANGES: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {
    # name: (changed resources, parameters before, parameters after)
    "nothing": ({}, {}, {}),
    "one server renamed": ({"server3": node(3, server_name="renamed")["server3"]}, {}, {}),
    "a resource added": ({"extra": {"type": "OS::Heat::Value", "properties": {"value": 1}}}, {}, {}),
    "a resource removed": ({"value2": None}, {}, {}),
    "the parameters": ({}, {}, {"parameters": {"image": "fedora", "size": 3}}),
    "a referenced resource's type": ({"net": {"type": "OS::Heat::None"}}, {}, {}),
    "a referenced resource renamed with its referrers": (
        {"net": None, "net2": {"type": "OS::Neutron::Net"}}
        | {f"port{index}": node(index, network="net2")[f"port{index}"] for index in range(6)},
        {},
        {},
    ),
    "a referenced resource renamed alone": ({"net": None, "net2": {"type": "OS::Neutron::Net"}}, {}, {}),
    "an unknown property in one resource": (
        {"volume4": {"type": "OS::Cinder::Volume", "properties": {"size": 1, "bogus": 2}}},
        {},
        {},
    ),
    "an attribute the referenced type does not have": (
        {"server1": {"type": "OS::Heat::Value", "properties": {"value": 1}}},
        {},
        {},
    ),
    "a parameter value breaking a reused resource's check": ({}, {}, {"parameters": {"size": "many"}}),
    "a dependency cycle": (
        {
            "port5": {
                "type": "OS::Neutron::Port",
                "properties": {"network": {"get_attr": ["value5", "value"]}},
            }
        },
        {},
        {},
    ),
}


@pytest.mark.parametrize("written", sorted(FORMATS))
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_load_reusing_the_last_clean_one_equals_a_fresh_load(written: str, change: str) -> None:
    changed, before_inputs, after_inputs = CHANGES[change]
    render = FORMATS[written]
    reused, fresh = reused_and_fresh(
        {"t.yaml": render(resources())}, {"t.yaml": render(resources(**changed))}, before_inputs, after_inputs
    )
    assert reused == fresh


@pytest.mark.parametrize("written", sorted(FORMATS))
def test_an_error_in_an_otherwise_unchanged_template_names_its_file_and_line(written: str) -> None:
    text = FORMATS[written](resources(volume2={"type": "OS::Cinder::Volume", "properties": {"size": "x"}}))
    reused, fresh = reused_and_fresh({"t.yaml": FORMATS[written](resources())}, {"t.yaml": text}, {}, {})
    assert reused == fresh
    assert [(problem.file, problem.line) for problem in reused] == [
        (
            "t.yaml",
            next(
                number
                for number, line in enumerate(text.splitlines(), 1)
                if '"volume2"' in line or "volume2:" in line
            ),
        )
    ]


ENVIRONMENTS = {
    "a type mapped elsewhere": (
        "resource_registry:\n  My::Port: OS::Neutron::Port\n",
        "resource_registry:\n  My::Port: OS::Heat::Value\n",
    ),
    "a type mapped the same way": (
        "resource_registry:\n  My::Port: OS::Neutron::Port\n",
        "resource_registry:\n  My::Port: OS::Neutron::Port\n# touched\n",
    ),
    "a parameter given by the environment": (
        "resource_registry:\n  My::Port: OS::Neutron::Port\n",
        "resource_registry:\n  My::Port: OS::Neutron::Port\nparameters:\n  image: fedora\n",
    ),
}


@pytest.mark.parametrize("written", sorted(FORMATS))
@pytest.mark.parametrize("change", sorted(ENVIRONMENTS))
def test_an_environment_change_gives_what_a_fresh_load_gives(written: str, change: str) -> None:
    before_environment, after_environment = ENVIRONMENTS[change]
    bodies = resources(port1={"type": "My::Port", "properties": {"network": {"get_resource": "net"}}})
    text = FORMATS[written](bodies)
    reused, fresh = reused_and_fresh(
        {"t.yaml": text, "env.yaml": before_environment},
        {"t.yaml": text, "env.yaml": after_environment},
        {},
        {},
    )
    assert reused == fresh


def test_warnings_come_out_as_a_fresh_load_gives_them() -> None:
    """A function the version does not have is plain data with a warning, once per name: the
    resource holding it is made again at each load, so the warning moves as a fresh load moves it."""
    old = "heat_template_version: 2013-05-23\n"
    yaml_data = {"type": "OS::Heat::Value", "properties": {"value": {"yaql": {"expression": "1"}}}}
    before = as_yaml(resources(value1=yaml_data, value3=yaml_data)).replace(HEAD, old).replace(CONDITIONS, "")
    after = as_yaml(resources(value3=yaml_data)).replace(HEAD, old).replace(CONDITIONS, "")
    reused, fresh = reused_and_fresh({"t.yaml": before}, {"t.yaml": after}, {}, {})
    assert reused == fresh
    assert len(reused["warnings"]) == 1


def test_an_image_of_other_inputs_is_not_used() -> None:
    """The same template loaded with other parameters, then with the first ones again: each load
    equals a fresh one (an image is found only under the digest of all its inputs)."""
    keeper = MemoryBlockKeeper()
    text = {"t.yaml": as_yaml(resources())}
    for values in ({"image": "a"}, {"image": "b"}, {"image": "a"}):
        assert outcome(text, keeper, parameters=values) == outcome(text, None, parameters=values)


@pytest.mark.parametrize("written", FORMATS)
def test_a_reused_resource_reads_as_the_fresh_load_makes_it(written: str) -> None:
    """A reused resource's definition, its written parts read from its body when asked for, is the
    fresh load's: equal from either side, printed alike, copied with a change alike."""
    keeper = MemoryBlockKeeper()
    before = {"t.yaml": FORMATS[written](resources())}
    after = {"t.yaml": FORMATS[written](resources(server3=node(3, server_name="renamed")["server3"]))}
    load_stack(MemorySource(before), "t.yaml", blocks=keeper)
    reused = load_stack(MemorySource(after), "t.yaml", blocks=keeper).resources["server1"]
    fresh = load_stack(MemorySource(after), "t.yaml").resources["server1"]
    assert fresh == reused
    assert reused == fresh
    assert repr(reused) == repr(fresh)
    assert reused.properties["networks"] == [{"port": {"get_resource": "port1"}}]
    assert dataclasses.replace(reused, type="OS::Heat::None") == dataclasses.replace(
        fresh, type="OS::Heat::None"
    )
    assert dataclasses.asdict(reused) == dataclasses.asdict(fresh)
