"""Parameters (types, constraints, precedence) and conditions, as the HOT specification has them."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.templates import TemplateError

from .snippets import EmptyCloud, ReadyCloud, load_template

ROCKY = "2018-08-31"


def _with_parameter(schema: dict[str, Any]) -> dict[str, Any]:
    return {"heat_template_version": ROCKY, "parameters": {"p": schema}, "resources": {}}


TYPED = [
    ("string from number", {"type": "string"}, 42, "42"),
    ("number from string", {"type": "number"}, "2.5", 2.5),
    ("number integer", {"type": "number"}, "7", 7),
    ("json from string", {"type": "json"}, '{"a": 1}', {"a": 1}),
    ("json map", {"type": "json"}, {"a": 1}, {"a": 1}),
    ("comma list from string", {"type": "comma_delimited_list"}, "a,b", ["a", "b"]),
    ("comma list empty string", {"type": "comma_delimited_list"}, "", []),
    ("comma list from list", {"type": "comma_delimited_list"}, [1, "b"], ["1", "b"]),
    ("boolean from 'on'", {"type": "boolean"}, "on", True),
    ("boolean from 'False'", {"type": "boolean"}, "False", False),
    ("range ok", {"type": "number", "constraints": [{"range": {"min": 1, "max": 3}}]}, 3, 3),
    (
        "modulo ok (2017-02-24+)",
        {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 1}}]},
        5,
        5,
    ),
    ("allowed_values ok", {"type": "string", "constraints": [{"allowed_values": ["a", "b"]}]}, "b", "b"),
    ("allowed_pattern ok", {"type": "string", "constraints": [{"allowed_pattern": "[a-z]+"}]}, "abc", "abc"),
    (
        "custom_constraint recorded, not checked",
        {"type": "string", "constraints": [{"custom_constraint": "nova.flavor"}]},
        "x",
        "x",
    ),
]


@pytest.mark.parametrize(("schema", "given", "expected"), [r[1:] for r in TYPED], ids=[r[0] for r in TYPED])
def test_parameter_values_are_typed(schema: dict[str, Any], given: Any, expected: Any) -> None:
    assert load_template(_with_parameter(schema), values={"p": given}).parameters["p"] == expected


REFUSED = [
    ("not a number", {"type": "number"}, "x", "is not a number"),
    ("not a boolean", {"type": "boolean"}, "maybe", "acceptable values are: true, false"),
    ("json not a map", {"type": "json"}, "[1", "must be valid JSON"),
    (
        "out of range",
        {"type": "number", "constraints": [{"range": {"min": 1, "max": 3}}]},
        4,
        "must be in the range 1 to 3",
    ),
    (
        "too short",
        {"type": "string", "constraints": [{"length": {"min": 2}}]},
        "a",
        "length must be at least 2",
    ),
    (
        "not allowed",
        {"type": "string", "constraints": [{"allowed_values": ["a"]}]},
        "b",
        "is not an allowed value",
    ),
    (
        "pattern",
        {"type": "string", "constraints": [{"allowed_pattern": "[a-z]+"}]},
        "A1",
        "does not match pattern",
    ),
    (
        "modulo",
        {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 0}}]},
        3,
        "is not a multiple of 2",
    ),
    (
        "custom description replaces the message",
        {"type": "string", "constraints": [{"length": {"max": 1}, "description": "one letter please"}]},
        "ab",
        "one letter please",
    ),
]


@pytest.mark.parametrize(
    ("schema", "given", "message"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_parameter_values_breaking_type_or_constraints_are_errors(
    schema: dict[str, Any], given: Any, message: str
) -> None:
    with pytest.raises(TemplateError, match=message):
        load_template(_with_parameter(schema), values={"p": given})


SCHEMA_ERRORS = [
    ("unknown type", {"type": "text"}, "invalid type 'text'"),
    ("no type", {"default": 1}, "missing parameter type"),
    ("unknown key", {"type": "string", "secret": True}, "invalid key(s) secret"),
    (
        "range on a string",
        {"type": "string", "constraints": [{"range": {"min": 1}}]},
        "applies to numbers only",
    ),
    (
        "default breaking its constraint",
        {"type": "number", "default": 9, "constraints": [{"range": {"max": 3}}]},
        "the default breaks a constraint",
    ),
    ("bad pattern", {"type": "string", "constraints": [{"allowed_pattern": "("}]}, "invalid allowed_pattern"),
]


@pytest.mark.parametrize(
    ("schema", "message"), [r[1:] for r in SCHEMA_ERRORS], ids=[r[0] for r in SCHEMA_ERRORS]
)
def test_malformed_parameter_definitions_are_errors(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(TemplateError) as raised:
        load_template(_with_parameter(schema))
    assert message in str(raised.value)
    assert raised.value.problems[0].line > 0


def test_modulo_needs_2017_02_24() -> None:
    template = _with_parameter({"type": "number", "constraints": [{"modulo": {"step": 2}}]})
    template["heat_template_version"] = "2016-10-14"
    with pytest.raises(TemplateError, match="modulo constraint needs heat_template_version 2017-02-24"):
        load_template(template)


def test_a_parameter_without_value_or_default_is_allowed_and_reported_missing() -> None:
    definition = load_template(_with_parameter({"type": "string"}))
    assert definition.missing_parameters == frozenset({"p"})


def test_unknown_parameter_value_is_an_error() -> None:
    with pytest.raises(TemplateError, match=r"The Parameter \(q\) was not defined in template"):
        load_template(_with_parameter({"type": "string"}), values={"q": 1})


CONDITIONAL = {
    "heat_template_version": "2021-04-16",
    "parameters": {"env": {"type": "string", "default": "test"}},
    "conditions": {
        "prod": {"equals": [{"get_param": "env"}, "prod"]},
        "not_prod": {"not": "prod"},
        "both": {"and": ["not_prod", True]},
        "either": {"or": ["prod", {"contains": ["te", ["te", "st"]]}]},
    },
    "resources": {
        "big": {"type": "OS::Heat::None", "condition": "prod"},
        "small": {"type": "OS::Heat::None", "condition": "not_prod"},
        "user": {
            "type": "OS::Heat::None",
            "properties": {
                "size": {"if": ["prod", "large", "tiny"]},
                "big_id": {"get_resource": "big"},
                "small_id": {"get_resource": "small"},
                "extra": {"if": ["prod", "only-in-prod"]},
            },
        },
    },
    "outputs": {
        "big_id": {"value": {"get_resource": "big"}, "condition": "prod"},
        "flags": {"value": {"if": ["both", "both", "not both"]}},
        "either": {"value": {"if": ["either", 1, 0]}},
    },
}


def test_false_conditions_remove_resources_references_and_dependencies() -> None:
    definition = load_template(CONDITIONAL)
    assert set(definition.resources) == {"small", "user"}
    assert definition.graph()["user"] == frozenset({"small"})
    properties = definition.resolve_properties("user", ReadyCloud())
    assert properties == {"size": "tiny", "big_id": None, "small_id": "id-small"}  # wallaby: `extra` omitted
    assert definition.resolve_output("big_id", EmptyCloud()) is None
    assert definition.resolve_output("flags", EmptyCloud()) == "both"
    assert definition.resolve_output("either", EmptyCloud()) == 1


def test_true_conditions_keep_resources() -> None:
    definition = load_template(CONDITIONAL, values={"env": "prod"})
    assert set(definition.resources) == {"big", "user"}
    assert definition.resolve_properties("user", ReadyCloud())["extra"] == "only-in-prod"
    assert definition.graph()["user"] == frozenset({"big"})


def test_conditions_in_a_cycle_are_an_error() -> None:
    template = {
        "heat_template_version": ROCKY,
        "conditions": {"a": {"not": "b"}, "b": {"not": "a"}},
        "resources": {"r": {"type": "OS::Heat::None", "condition": "a"}},
    }
    with pytest.raises(TemplateError, match="Circular definition of conditions"):
        load_template(template)


def test_parameter_schemas_carry_immutable_and_custom_constraints() -> None:
    schema = {"type": "string", "immutable": True, "constraints": [{"custom_constraint": "nova.keypair"}]}
    definition = load_template(_with_parameter(schema), values={"p": "key"})
    assert definition.parameter_schemas["p"].immutable is True
    assert definition.parameter_schemas["p"].custom_constraints == ("nova.keypair",)


def test_an_output_left_out_by_a_wallaby_if_is_null() -> None:
    template = {
        "heat_template_version": "wallaby",
        "conditions": {"never": False},
        "outputs": {"maybe": {"value": {"if": ["never", "x"]}}},
    }
    definition = load_template(template)
    assert definition.resolve_output("maybe", EmptyCloud()) is None
    assert definition.output_without_cloud("maybe") is None
