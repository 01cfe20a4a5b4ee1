"""validate checks a property value computed from parameters against the type's schema once it is
known without a cloud (a default or a given value), with Heat's message, the file's line and the
resource and property named; a value that reads a resource is known only at apply, and left alone
as Heat leaves it until then."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.templates import TemplateError

from .snippets import load_template

KEY_SIZE = {"type": "number", "default": 512}


def _template(parameters: dict[str, Any], resources: dict[str, Any]) -> dict[str, Any]:
    return {"heat_template_version": "2015-04-30", "parameters": parameters, "resources": resources}


ENCRYPTED = {
    "vt": {"type": "OS::Cinder::VolumeType", "properties": {"name": "x"}},
    "evt": {
        "type": "OS::Cinder::EncryptedVolumeType",
        "properties": {
            "provider": "p",
            "key_size": {"get_param": "key_size"},
            "volume_type": {"get_resource": "vt"},
        },
    },
}
VOLUME = {"vol": {"type": "OS::Cinder::Volume", "properties": {"size": {"get_param": "size"}}}}

REFUSED = [
    (
        "a parameter's default outside the allowed values",
        {"key_size": KEY_SIZE},
        ENCRYPTED,
        {},
        'Property error: resources.evt.properties.key_size: "512" is not an allowed value [128, 256]',
    ),
    (
        "a given value outside the range",
        {"size": {"type": "number"}},
        VOLUME,
        {"size": 0},
        "Property error: resources.vol.properties.size: 0 is out of range (min: 1, max: None)",
    ),
    (
        "a value computed from parameters by other functions",
        {"size": {"type": "string", "default": "big"}},
        {
            "vol": {
                "type": "OS::Cinder::Volume",
                "properties": {
                    "size": {"str_replace": {"template": "x$s", "params": {"$s": {"get_param": "size"}}}}
                },
            }
        },
        {},
        "Property error: resources.vol.properties.size: Value 'xbig' is not an integer",
    ),
]


@pytest.mark.parametrize(
    ("parameters", "resources", "values", "expected"),
    [case[1:] for case in REFUSED],
    ids=[case[0] for case in REFUSED],
)
def test_a_value_known_from_parameters_is_checked_with_heats_message_and_a_line(
    parameters: dict[str, Any], resources: dict[str, Any], values: dict[str, Any], expected: str
) -> None:
    with pytest.raises(TemplateError) as raised:
        load_template(_template(parameters, resources), values=values)

    (problem,) = raised.value.problems
    assert problem.message == expected
    assert problem.file == "t.yaml" and problem.line > 0


ACCEPTED = [
    ("a value inside the constraints", {"key_size": {"type": "number", "default": 256}}, ENCRYPTED, {}),
    ("a given value overriding a wrong default", {"key_size": KEY_SIZE}, ENCRYPTED, {"key_size": 128}),
    ("a parameter without a value: known at apply", {"size": {"type": "number"}}, VOLUME, {}),
    (
        "a value reading a resource: known at apply",
        {"size": {"type": "number", "default": 0}},
        {
            "vt": {"type": "OS::Cinder::VolumeType", "properties": {"name": "x"}},
            "vol": {
                "type": "OS::Cinder::Volume",
                "properties": {"size": {"list_join": ["", [{"get_param": "size"}, {"get_resource": "vt"}]]}},
            },
        },
        {},
    ),
]


@pytest.mark.parametrize(
    ("parameters", "resources", "values"), [case[1:] for case in ACCEPTED], ids=[case[0] for case in ACCEPTED]
)
def test_values_inside_their_constraints_or_not_known_yet_are_valid(
    parameters: dict[str, Any], resources: dict[str, Any], values: dict[str, Any]
) -> None:
    load_template(_template(parameters, resources), values=values)


def test_a_hidden_parameter_s_value_never_appears_in_the_refusal() -> None:
    template = _template(
        {"direction": {"type": "string", "hidden": True, "default": "s3cret-direction"}},
        {
            "rule": {
                "type": "OS::Neutron::SecurityGroupRule",
                "properties": {"security_group": "sg", "direction": {"get_param": "direction"}},
            }
        },
    )

    with pytest.raises(TemplateError) as raised:
        load_template(template)

    (problem,) = raised.value.problems
    assert "s3cret" not in problem.message
    assert problem.message.startswith("Property error: resources.rule.properties.direction: ")
