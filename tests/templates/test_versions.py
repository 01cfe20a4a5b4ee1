"""Template versions: each admits exactly the functions and sections Heat admits for it.

EXPECTED_FIRST is written from the HOT specification's per-version function lists: a function is a
call from its first version on; before, it is plain data with a warning naming that version. The
CFN-style functions exist in 2013-05-23 only (Fn::Select until 2015-04-30); later they are errors.
"""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.templates import MemorySource, TemplateError, load_stack
from reconciler.templates.nodes import Call, Parser, References
from reconciler.templates.versions import VERSIONS, version_named

from .snippets import load_template, template_with

DATES = [
    ("2013-05-23", None),
    ("2014-10-16", None),
    ("2015-04-30", None),
    ("2015-10-15", None),
    ("2016-04-08", None),
    ("2016-10-14", "newton"),
    ("2017-02-24", "ocata"),
    ("2017-09-01", "pike"),
    ("2018-03-02", "queens"),
    ("2018-08-31", "rocky"),
    ("2021-04-16", "wallaby"),
]

EXPECTED_FIRST = {
    "get_param": "2013-05-23",
    "get_resource": "2013-05-23",
    "get_attr": "2013-05-23",
    "get_file": "2013-05-23",
    "list_join": "2013-05-23",
    "str_replace": "2013-05-23",
    "resource_facade": "2013-05-23",
    "digest": "2015-04-30",
    "repeat": "2015-04-30",
    "str_split": "2015-10-15",
    "map_merge": "2016-04-08",
    "map_replace": "2016-10-14",
    "yaql": "2016-10-14",
    "if": "2016-10-14",
    "str_replace_strict": "2017-02-24",
    "filter": "2017-02-24",
    "make_url": "2017-09-01",
    "list_concat": "2017-09-01",
    "list_concat_unique": "2017-09-01",
    "contains": "2017-09-01",
    "str_replace_vstrict": "2017-09-01",
}
CFN_ONLY_2013 = [
    "Fn::GetAZs",
    "Ref",
    "Fn::Join",
    "Fn::Split",
    "Fn::Replace",
    "Fn::Base64",
    "Fn::MemberListToMap",
    "Fn::ResourceFacade",
]
CONDITION_FIRST = {
    "equals": "2016-10-14",
    "not": "2016-10-14",
    "and": "2016-10-14",
    "or": "2016-10-14",
    "contains": "2017-09-01",
    "yaql": "2017-09-01",
    "if": "2021-04-16",
}


def _parse(version: str, data: Any, *, in_conditions: bool = False) -> tuple[Any, list[str], list[str]]:
    errors: list[str] = []
    warnings: list[str] = []
    known = version_named(version)
    assert known is not None
    parser = Parser(
        known,
        lambda where, m: errors.append(m),
        lambda where, m: warnings.append(m),
        in_conditions=in_conditions,
    )
    return parser.parse(data, (), References()), errors, warnings


@pytest.mark.parametrize(("date", "alias"), DATES)
def test_every_version_is_known_by_date_and_alias(date: str, alias: str | None) -> None:
    assert version_named(date) is not None
    if alias:
        assert version_named(alias) is version_named(date)
    assert load_template(template_with(date, "x")).resources["subject"].type == "OS::Heat::None"


@pytest.mark.parametrize("version", [v.date for v in VERSIONS])
@pytest.mark.parametrize("function", sorted(EXPECTED_FIRST))
def test_function_is_a_call_from_its_first_version_and_data_before(version: str, function: str) -> None:
    parsed, errors, warnings = _parse(version, {function: "argument"})
    assert errors == []
    if version >= EXPECTED_FIRST[function]:
        assert isinstance(parsed, Call)
        assert warnings == []
    else:
        assert parsed == {function: "argument"}
        assert f"heat_template_version {EXPECTED_FIRST[function]}" in warnings[0]


@pytest.mark.parametrize("version", [v.date for v in VERSIONS])
@pytest.mark.parametrize("function", [*CFN_ONLY_2013, "Fn::Select"])
def test_cfn_functions_are_removed_after_2013(version: str, function: str) -> None:
    parsed, errors, _ = _parse(version, {function: "argument"})
    still_there = version == "2013-05-23" or (function == "Fn::Select" and version <= "2015-04-30")
    if still_there:
        assert isinstance(parsed, Call)
    else:
        assert errors == [f'The function "{function}" is not supported in this version of HOT.']


@pytest.mark.parametrize("version", [v.date for v in VERSIONS if v.date >= "2016-10-14"])
@pytest.mark.parametrize("function", sorted(CONDITION_FIRST))
def test_condition_functions_per_version(version: str, function: str) -> None:
    parsed, errors, warnings = _parse(version, {function: [True, True]}, in_conditions=True)
    admitted = version >= CONDITION_FIRST[function]
    resource_function = version >= EXPECTED_FIRST.get(function, "9999")
    assert isinstance(parsed, Call) == admitted
    # As Heat: a resource function is an error inside a condition; an unknown name is data.
    assert errors == (
        [] if admitted or not resource_function else [f'The function "{function}" is invalid in this context']
    )
    assert bool(warnings) == (not admitted and not resource_function)


SECTION_ROWS = [
    (
        "conditions section before 2016-10-14",
        "2016-04-08",
        {"conditions": {"c": True}},
        '"conditions" is not a valid template section',
    ),
    ("unknown section", "2018-08-31", {"mappings": {}}, '"mappings" is not a valid template section'),
    (
        "resource condition before 2016-10-14",
        "2016-04-08",
        {"resources": {"r": {"type": "OS::Heat::None", "condition": True}}},
        '"condition" is not a valid keyword',
    ),
    (
        "resource external_id before 2016-10-14",
        "2016-04-08",
        {"resources": {"r": {"type": "OS::Heat::None", "external_id": "x"}}},
        '"external_id" is not a valid keyword',
    ),
    (
        "output condition before 2016-10-14",
        "2016-04-08",
        {"outputs": {"o": {"value": 1, "condition": True}}},
        '"condition" is not a valid keyword',
    ),
    (
        "unknown resource key",
        "2018-08-31",
        {"resources": {"r": {"type": "OS::Heat::None", "propertiez": {}}}},
        '"propertiez" is not a valid keyword',
    ),
    ("resource without type", "2018-08-31", {"resources": {"r": {"properties": {}}}}, 'missing "type"'),
    (
        "bad deletion policy",
        "2018-08-31",
        {"resources": {"r": {"type": "OS::Heat::None", "deletion_policy": "Keep"}}},
        'Invalid deletion policy "Keep"',
    ),
    (
        "lowercase policy before 2016-10-14",
        "2016-04-08",
        {"resources": {"r": {"type": "OS::Heat::None", "deletion_policy": "retain"}}},
        'Invalid deletion policy "retain"',
    ),
    (
        "parameter tags before 2018-03-02",
        "2017-09-01",
        {"parameters": {"p": {"type": "string", "tags": ["a"]}}},
        "invalid key(s) tags",
    ),
    (
        "a resource function inside a condition",
        "2018-08-31",
        {"conditions": {"c": {"equals": [{"str_split": [",", "a"]}, []]}}},
        'The function "str_split" is invalid in this context',
    ),
    (
        "depends_on unknown",
        "2018-08-31",
        {"resources": {"r": {"type": "OS::Heat::None", "depends_on": "s"}}},
        'depends_on names "s"',
    ),
    (
        "output without value",
        "2018-08-31",
        {"outputs": {"o": {"description": "x"}}},
        "must contain a value key",
    ),
    ("unknown version", "2019-01-01", {}, "unknown heat_template_version '2019-01-01'"),
]


@pytest.mark.parametrize(
    ("version", "sections", "message"), [r[1:] for r in SECTION_ROWS], ids=[r[0] for r in SECTION_ROWS]
)
def test_sections_and_keys_per_version(version: str, sections: dict[str, Any], message: str) -> None:
    template = {"heat_template_version": version, **sections}
    with pytest.raises(TemplateError) as raised:
        load_template(template)
    assert message in str(raised.value)


@pytest.mark.parametrize(
    ("version", "allowed"), [("2016-10-14", True), ("2018-08-31", True), ("2016-04-08", False)]
)
def test_external_id_and_condition_keys(version: str, allowed: bool) -> None:
    template = {
        "heat_template_version": version,
        "resources": {"r": {"type": "OS::Heat::None", "external_id": "abc"}},
    }
    if allowed:
        assert load_template(template).resources["r"].external_id == "abc"
    else:
        with pytest.raises(TemplateError):
            load_template(template)


def test_dates_stay_strings() -> None:
    text = (
        "heat_template_version: 2013-05-23\n"
        "parameters:\n  day: {type: string, default: 2020-01-31}\n"
        "resources: {}\n"
    )
    definition = load_stack(MemorySource({"t.yaml": text}), "t.yaml")
    assert definition.parameters["day"] == "2020-01-31"


def test_unadmitted_function_warning_names_file_and_line() -> None:
    definition = load_template(template_with("2015-10-15", {"yaql": {"expression": "1", "data": {}}}))
    (warning,) = definition.warnings
    assert warning.file == "t.yaml" and warning.line > 0
    assert '"yaql" is plain data' in warning.message and "2016-10-14" in warning.message


def test_lowercase_deletion_policies_from_2016_10_14() -> None:
    template = {
        "heat_template_version": "2016-10-14",
        "resources": {"r": {"type": "OS::Heat::None", "deletion_policy": "retain"}},
    }
    assert load_template(template).resources["r"].deletion_policy == "Retain"


def test_parameter_tags_from_2018_03_02() -> None:
    template = {
        "heat_template_version": "2018-03-02",
        "parameters": {"p": {"type": "string", "tags": ["role"]}},
    }
    assert load_template(template).parameter_schemas["p"].tags == ("role",)
