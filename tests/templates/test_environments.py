"""Environments: sections, precedence, merge strategies across files, and the resource registry."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from reconciler.templates import MemorySource, StackDefinition, TemplateError, load_stack

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "name": {"type": "string", "default": "template"},
        "count": {"type": "number", "default": 1},
        "tags": {"type": "comma_delimited_list", "default": ""},
        "config": {"type": "json", "default": {}},
        "flag": {"type": "boolean", "default": False},
        "secret": {"type": "string", "default": "s"},
    },
    "resources": {
        "server": {"type": "OS::Nova::Server", "properties": {"flavor": "m1.small"}},
        "old": {"type": "OS::Quantum::Net"},
        "special": {"type": "OS::Nova::Server", "properties": {"flavor": "m1.small"}},
    },
}


def _load(*environments: dict[str, Any], values: dict[str, Any] | None = None) -> StackDefinition:
    files: dict[str, str | bytes] = {"t.yaml": yaml.safe_dump(TEMPLATE)}
    names = []
    for index, environment in enumerate(environments):
        files[f"env/{index}.yaml"] = yaml.safe_dump(environment)
        names.append(f"env/{index}.yaml")
    return load_stack(MemorySource(files), "t.yaml", names, values or {})


PRECEDENCE = [
    ("template default", [], {}, "template"),
    ("parameter_defaults replace the default", [{"parameter_defaults": {"name": "pd"}}], {}, "pd"),
    (
        "parameters beat parameter_defaults",
        [{"parameter_defaults": {"name": "pd"}, "parameters": {"name": "p"}}],
        {},
        "p",
    ),
    (
        "a later file overwrites",
        [{"parameters": {"name": "first"}}, {"parameters": {"name": "second"}}],
        {},
        "second",
    ),
    (
        "the caller's value beats the environment",
        [{"parameters": {"name": "p"}}],
        {"name": "caller"},
        "caller",
    ),
]


@pytest.mark.parametrize(
    ("environments", "values", "expected"), [r[1:] for r in PRECEDENCE], ids=[r[0] for r in PRECEDENCE]
)
def test_parameter_precedence(
    environments: list[dict[str, Any]], values: dict[str, Any], expected: str
) -> None:
    assert _load(*environments, values=values).parameters["name"] == expected


def _merged(name: str, first: Any, second: Any, strategy: str) -> Any:
    environments = [
        {"parameters": {name: first}, "parameter_merge_strategies": {name: strategy}},
        {"parameters": {name: second}, "parameter_merge_strategies": {name: strategy}},
    ]
    return _load(*environments).parameters[name]


MERGES = [
    ("string merge concatenates", "name", "ab", "cd", "merge", "abcd"),
    ("number merge adds", "count", 2, 3, "merge", 5),
    ("comma list merge extends", "tags", "a,b", "c", "merge", ["a", "b", "c"]),
    (
        "json merge updates",
        "config",
        {"a": {"x": 1}, "b": 1},
        {"a": {"y": 2}},
        "merge",
        {"a": {"y": 2}, "b": 1},
    ),
    (
        "json deep_merge merges",
        "config",
        {"a": {"x": 1}},
        {"a": {"y": 2}},
        "deep_merge",
        {"a": {"x": 1, "y": 2}},
    ),
    ("overwrite", "name", "ab", "cd", "overwrite", "cd"),
]


@pytest.mark.parametrize(
    ("name", "first", "second", "strategy", "expected"), [r[1:] for r in MERGES], ids=[r[0] for r in MERGES]
)
def test_merge_strategies(name: str, first: Any, second: Any, strategy: str, expected: Any) -> None:
    assert _merged(name, first, second, strategy) == expected


CONFLICTS = [
    ("explicit against explicit", {"name": "merge"}, {"name": "overwrite"}, "'overwrite'"),
    ("implicit overwrite after merge (Heat)", {"name": "merge"}, {}, "'overwrite'"),
    ("merge after implicit overwrite (Heat)", {}, {"default": "merge"}, "'merge'"),
]


@pytest.mark.parametrize(
    ("first", "second", "asked"), [r[1:] for r in CONFLICTS], ids=[r[0] for r in CONFLICTS]
)
def test_conflicting_strategies_across_files_are_an_error(
    first: dict[str, str], second: dict[str, str], asked: str
) -> None:
    environments = [
        {"parameters": {"name": "a"}, "parameter_merge_strategies": first},
        {"parameters": {"name": "b"}, "parameter_merge_strategies": second},
    ]
    with pytest.raises(TemplateError, match=f"Conflicting merge strategy {asked} for parameter 'name'"):
        _load(*environments)


def test_merging_booleans_is_an_error() -> None:
    with pytest.raises(TemplateError, match="cannot merge boolean"):
        _merged("flag", True, False, "merge")


def test_registry_aliases_wildcards_and_per_resource_entries() -> None:
    environment = {
        "resource_registry": {
            "OS::Quantum*": "OS::Neutron*",
            "OS::Nova::Server": "My::Server",
            "My::Server": "OS::Heat::None",
            "resources": {"special": {"OS::Nova::Server": "OS::Heat::None", "hooks": "pre-create"}},
        }
    }
    definition = _load(environment)
    assert definition.resources["old"].type == "OS::Neutron::Net"
    assert definition.resources["server"].type == "OS::Heat::None"
    assert definition.resources["special"].type == "OS::Heat::None"


def test_encrypted_param_names_are_hidden() -> None:
    assert "secret" in _load({"encrypted_param_names": ["secret"]}).hidden_parameters


ENVIRONMENT_ERRORS = [
    ("unknown section", {"parameter": {"name": "x"}}, "unknown section(s) parameter"),
    ("parameter the template lacks", {"parameters": {"nope": 1}}, "The Parameter (nope) was not defined"),
    (
        "bad hook",
        {"resource_registry": {"resources": {"server": {"hooks": "pre-boot"}}}},
        "invalid hook type",
    ),
    (
        "registry entry not a string",
        {"resource_registry": {"OS::Nova::Server": 1}},
        "resource_registry/OS::Nova::Server: 1 is not of type 'string'",
    ),
]


@pytest.mark.parametrize(
    ("environment", "message"), [r[1:] for r in ENVIRONMENT_ERRORS], ids=[r[0] for r in ENVIRONMENT_ERRORS]
)
def test_environment_errors(environment: dict[str, Any], message: str) -> None:
    with pytest.raises(TemplateError) as raised:
        _load(environment)
    assert message in str(raised.value)
    problem = raised.value.problems[0]
    assert (problem.file, problem.line > 0) == ("env/0.yaml", True)
