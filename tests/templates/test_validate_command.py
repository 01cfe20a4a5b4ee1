"""`reconciler validate`: exit codes, the JSON shape of issue 3, outputs resolved without a cloud."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from reconciler.cli.main import cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples-repo"
KEYS = {"valid", "errors", "resources", "nested_stacks", "outputs"}


def _validate(*arguments: str) -> tuple[int, Any]:
    result = CliRunner().invoke(cli, ["validate", *arguments, "--format", "json"])
    return result.exit_code, json.loads(result.output)


def test_samples_app_stack_is_valid_with_its_environments() -> None:
    code, report = _validate(
        str(SAMPLES / "stacks/app/template.yaml"),
        "-e",
        str(SAMPLES / "environments/common.yaml"),
        "-e",
        str(SAMPLES / "environments/prod.yaml"),
    )
    assert code == 0
    assert set(report) == KEYS
    assert report == {
        "valid": True,
        "errors": [],
        "resources": 3,
        "nested_stacks": 1,
        "outputs": {"node_addresses": None, "node_count": 2},
    }


def _repository(tmp_path: Path, template: dict[str, Any]) -> Path:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(template), encoding="utf-8")
    return path


OUTPUTS_TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "parameters": {
        "name": {"type": "string", "default": "web"},
        "password": {"type": "string", "hidden": True, "default": "very-secret-value"},
        "flag": {"type": "boolean", "default": False},
    },
    "conditions": {"on": {"get_param": "flag"}},
    "resources": {"server": {"type": "OS::Nova::Server", "properties": {"flavor": "m1.small"}}},
    "outputs": {
        "pure": {"value": {"str_replace": {"template": "name=N", "params": {"N": {"get_param": "name"}}}}},
        "live": {"value": {"get_attr": ["server", "first_address"]}},
        "partly_live": {
            "value": {"name": {"get_param": "name"}, "ip": {"get_attr": ["server", "first_address"]}}
        },
        "conditional": {"value": "x", "condition": "on"},
        "secret": {"value": {"list_join": ["-", [{"get_param": "password"}, "x"]]}},
        "failing": {"value": {"str_split": [",", "a,b", 9]}},
    },
}


def test_outputs_resolve_as_far_as_possible_without_a_cloud(tmp_path: Path) -> None:
    code, report = _validate(str(_repository(tmp_path, OUTPUTS_TEMPLATE)))
    assert code == 1  # the failing output is a validation error too
    assert report["valid"] is False
    assert "str_split" in report["errors"][0]["message"]


def test_outputs_shape_when_valid(tmp_path: Path) -> None:
    outputs: dict[str, Any] = dict(OUTPUTS_TEMPLATE["outputs"])
    del outputs["failing"]
    template = {**OUTPUTS_TEMPLATE, "outputs": outputs}
    code, report = _validate(str(_repository(tmp_path, template)))
    assert code == 0
    assert report["outputs"] == {
        "pure": "name=web",
        "live": None,
        "partly_live": {"name": "web", "ip": None},
        "conditional": None,
        "secret": "******",
    }


def test_invalid_template_exits_1_with_located_errors(tmp_path: Path) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"r": {"type": "OS::Heat::None", "depends_on": "nope"}},
    }
    code, report = _validate(str(_repository(tmp_path, template)))
    assert code == 1
    assert report["valid"] is False and report["resources"] == 0
    (error,) = report["errors"]
    assert error["file"] == "t.yaml" and error["line"] == 4 and "nope" in error["message"]


def test_parameters_from_the_command_line(tmp_path: Path) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "parameters": {"size": {"type": "number", "constraints": [{"range": {"max": 3}}]}},
        "outputs": {"size": {"value": {"get_param": "size"}}},
    }
    path = str(_repository(tmp_path, template))
    assert _validate(path, "-P", "size=2")[1]["outputs"] == {"size": 2}
    code, report = _validate(path, "-P", "size=9")
    assert code == 1 and "no greater than 3" in report["errors"][0]["message"]
    assert _validate(path)[0] == 0  # no value and no default: not an error here


@pytest.mark.parametrize("argument", ["size", "=2"])
def test_malformed_parameter_arguments_are_usage_errors(tmp_path: Path, argument: str) -> None:
    path = str(_repository(tmp_path, {"heat_template_version": "2018-08-31"}))
    result = CliRunner().invoke(cli, ["validate", path, "-P", argument])
    assert result.exit_code == 2 and "name=value" in result.output


def test_text_format_reports_validity(tmp_path: Path) -> None:
    path = str(
        _repository(
            tmp_path, {"heat_template_version": "2018-08-31", "resources": {"a": {"type": "OS::Heat::None"}}}
        )
    )
    result = CliRunner().invoke(cli, ["validate", path])
    assert result.exit_code == 0 and "valid (1 resources, 0 nested stacks)" in result.output


def test_a_template_over_heats_size_limit_is_valid_within_the_repositorys_own_limit(tmp_path: Path) -> None:
    template = _repository(tmp_path, {"heat_template_version": "2021-04-16", "resources": {}})
    template.write_text(template.read_text() + "#" * (600 * 1024) + "\n", encoding="utf-8")
    code, report = _validate(str(template))
    assert code == 1
    assert report["errors"] == [
        {
            "file": "t.yaml",
            "line": 0,
            "message": f"is {template.stat().st_size} bytes, over the limit of 524288 bytes",
        }
    ]

    (tmp_path / "reconciler.yaml").write_text(
        "stacks: {}\nlimits:\n  max_template_size: 1048576\n", encoding="utf-8"
    )
    assert _validate(str(template))[0] == 0


def test_a_limit_reconciler_yaml_cannot_hold_is_named_with_its_line(tmp_path: Path) -> None:
    template = _repository(tmp_path, {"heat_template_version": "2021-04-16", "resources": {}})
    (tmp_path / "reconciler.yaml").write_text(
        "stacks: {}\nlimits:\n  max_template_size: 10\n", encoding="utf-8"
    )
    code, report = _validate(str(template))
    assert code == 1
    [error] = report["errors"]
    assert (error["file"], error["line"]) == ("reconciler.yaml", 3)
    assert "10 is less than the minimum of 1024" in error["message"]
