"""Function cases where Heat's answer is easy to get wrong: paths, condition names, strict
replacement in outputs, and parameters read without a value."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.templates import FunctionError, TemplateError

from .snippets import load_template

ROCKY = "2018-08-31"


def _value(parameters: dict[str, Any], value: Any) -> dict[str, Any]:
    return {
        "heat_template_version": ROCKY,
        "parameters": parameters,
        "resources": {},
        "outputs": {"o": {"value": value}},
    }


PATHS = [
    ("an integer into a list", {"type": "json", "default": {"a": [5, 6]}}, ["p", "a", 1], 6),
    ("an integer into a map gives ''", {"type": "json", "default": {"a": 1}}, ["p", 0], ""),
    ("a map as a component gives ''", {"type": "json", "default": {"a": 1}}, ["p", {"a": "b"}], ""),
    ("a string index into a list", {"type": "json", "default": {"a": [5, 6]}}, ["p", "a", "0"], 5),
]


@pytest.mark.parametrize(("schema", "path", "expected"), [r[1:] for r in PATHS], ids=[r[0] for r in PATHS])
def test_get_param_paths_walk_as_heat_walks_them(
    schema: dict[str, Any], path: list[Any], expected: Any
) -> None:
    definition = load_template(_value({"p": schema}, {"get_param": path}))
    assert definition.output_without_cloud("o") == expected


def test_a_condition_defined_as_another_conditions_name_is_invalid() -> None:
    template = {
        "heat_template_version": ROCKY,
        "conditions": {"base": True, "alias": "base"},
        "resources": {},
    }
    with pytest.raises(TemplateError, match='The definition of condition "alias" is invalid: base'):
        load_template(template)


def test_a_failing_strict_replacement_in_an_output_is_that_outputs_error_only() -> None:
    replaced = {"str_replace_vstrict": {"template": "abc", "params": {"b": ""}}}
    definition = load_template(_value({}, replaced))
    with pytest.raises(FunctionError, match="empty values: b"):
        definition.output_without_cloud("o")


def test_a_condition_reading_a_parameter_without_a_value_is_not_provided() -> None:
    template = {
        "heat_template_version": ROCKY,
        "parameters": {"env": {"type": "string"}},
        "conditions": {"prod": {"equals": [{"get_param": "env"}, "prod"]}},
        "resources": {"r": {"type": "OS::Heat::None", "condition": "prod"}},
    }
    with pytest.raises(TemplateError, match=r"The Parameter \(env\) was not provided\."):
        load_template(template)
    assert set(load_template(template, values={"env": "prod"}).resources) == {"r"}


def test_a_parameter_without_a_value_read_only_by_properties_is_valid() -> None:
    template = {
        "heat_template_version": ROCKY,
        "parameters": {"name": {"type": "string"}},
        "resources": {"r": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "name"}}}},
    }
    assert set(load_template(template).resources) == {"r"}
