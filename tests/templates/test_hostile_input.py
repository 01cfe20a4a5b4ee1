"""Hostile and broken input: every case is refused with a clear, located error, never a crash.

Real files in a temporary repository tree, read through `DirectorySource`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from reconciler.templates import DirectorySource, Limits, TemplateError, load_stack

HEADER = "heat_template_version: 2018-08-31\n"


def _laughs(level: int) -> str:
    items = [f"*l{level - 1}"] * 9 if level else ["x"] * 9
    return f"      l{level}: &l{level} [{', '.join(items)}]\n"


BILLION_LAUGHS = (
    HEADER
    + "resources: {}\nparameters:\n  p:\n    type: json\n    default:\n"
    + "".join(_laughs(level) for level in range(10))
)


def _repository(tmp_path: Path, files: Mapping[str, str | bytes]) -> DirectorySource:
    for name, content in files.items():
        path = tmp_path / "repo" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return DirectorySource(tmp_path / "repo")


def _error(source: DirectorySource, template: str = "t.yaml", limits: Limits | None = None) -> str:
    with pytest.raises(TemplateError) as raised:
        load_stack(source, template, limits=limits)
    return str(raised.value)


CASES = [
    ("alias bomb", {"t.yaml": BILLION_LAUGHS}, "expands to more than 1000000 nodes (YAML aliases)"),
    ("ten megabytes", {"t.yaml": HEADER + "#" * (10 * 1024 * 1024)}, "over the limit of 524288 bytes"),
    (
        "deep nesting",
        {"t.yaml": HEADER + "resources: " + "[" * 100_000 + "]" * 100_000},
        "nesting deeper than",
    ),
    (
        "get_file escaping the tree",
        {
            "t.yaml": HEADER
            + "resources:\n  r:\n    type: OS::Heat::None\n"
            + "    properties: {p: {get_file: ../../etc/passwd}}\n"
        },
        "t.yaml:5:",
    ),
    (
        "recursive template resources",
        {
            "t.yaml": HEADER + "resources:\n  a: {type: a.yaml}\n",
            "a.yaml": HEADER + "resources:\n  b: {type: b.yaml}\n",
            "b.yaml": HEADER + "resources:\n  a: {type: a.yaml}\n",
        },
        "Recursive template resource: a.yaml -> b.yaml -> a.yaml",
    ),
    (
        "a template using itself",
        {"t.yaml": HEADER + "resources:\n  me: {type: t.yaml}\n"},
        "Recursive template resource: t.yaml -> t.yaml",
    ),
    ("not UTF-8", {"t.yaml": b"\xff\xfe" + HEADER.encode()}, "is not UTF-8 text"),
    ("YAML syntax error", {"t.yaml": HEADER + "resources:\n  r: {type: [\n"}, "t.yaml:4:"),
    (
        "a Python object tag",
        {"t.yaml": HEADER + "resources: !!python/object:os.system {}\n"},
        "unsupported YAML tag",
    ),
    ("two documents", {"t.yaml": HEADER + "---\n" + HEADER}, "more than one YAML document"),
    ("a list, not a template", {"t.yaml": "- 1\n"}, "a template must be a map"),
    ("no version", {"t.yaml": "resources: {}\n"}, "has no heat_template_version"),
    ("missing file", {}, "t.yaml: file not found"),
    (
        "cyclic dependencies",
        {
            "t.yaml": HEADER
            + "resources:\n  a: {type: OS::Heat::None, depends_on: b}\n"
            + "  b: {type: OS::Heat::None, depends_on: a}\n"
        },
        "Circular Dependency Found",
    ),
]


@pytest.mark.parametrize(("files", "message"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_hostile_input_is_refused_clearly(
    tmp_path: Path, files: dict[str, str | bytes], message: str
) -> None:
    assert message in _error(_repository(tmp_path, files))


def test_get_file_escape_names_the_problem(tmp_path: Path) -> None:
    source = _repository(
        tmp_path,
        {
            "t.yaml": HEADER
            + "resources:\n  r:\n    type: OS::Heat::None\n"
            + "    properties: {p: {get_file: ../../etc/passwd}}\n"
        },
    )
    assert "escapes the repository tree" in _error(source)


def test_symlink_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password", encoding="utf-8")
    source = _repository(
        tmp_path,
        {
            "t.yaml": HEADER
            + "resources:\n  r:\n    type: OS::Heat::None\n    properties: {p: {get_file: link.txt}}\n"
        },
    )
    os.symlink(secret, tmp_path / "repo" / "link.txt")
    message = _error(source)
    assert "resolves outside the repository tree" in message
    assert "password" not in message


def test_nesting_deeper_than_the_limit_is_refused(tmp_path: Path) -> None:
    files = {
        f"l{level}.yaml": HEADER + f"resources:\n  next: {{type: l{level + 1}.yaml}}\n" for level in range(4)
    }
    files["l4.yaml"] = HEADER + "resources: {}\n"
    source = _repository(tmp_path, files)
    assert (
        load_stack(source, "l0.yaml", limits=Limits(max_nested_stack_depth=4)).resources["next"].nested_kind
    )
    assert "Recursion depth exceeds 3" in _error(source, "l0.yaml", Limits(max_nested_stack_depth=3))


def test_hidden_values_never_appear_in_errors(tmp_path: Path) -> None:
    template = HEADER + (
        "parameters:\n  password:\n    type: string\n    hidden: true\n"
        "    constraints: [{length: {min: 20}}]\nresources: {}\n"
    )
    source = _repository(tmp_path, {"t.yaml": template})
    with pytest.raises(TemplateError) as raised:
        load_stack(source, "t.yaml", (), {"password": "hunter2-secret"})
    assert "hunter2-secret" not in str(raised.value)
    assert "length must be at least 20" in str(raised.value)


def test_json_templates_load_and_errors_have_lines(tmp_path: Path) -> None:
    valid = '{"heat_template_version": "2018-08-31",\n "resources": {"a": {"type": "OS::Heat::None"}}}\n'
    assert list(load_stack(_repository(tmp_path, {"t.json": valid}), "t.json").resources) == ["a"]
    broken = (
        '{"heat_template_version": "2018-08-31",\n'
        ' "resources": {"a": {"type": "OS::Heat::None", "depends_on": "b"}}}\n'
    )
    with pytest.raises(TemplateError) as raised:
        load_stack(_repository(tmp_path, {"u.json": broken}), "u.json")
    assert raised.value.problems[0].line == 2
    with pytest.raises(TemplateError, match=r"u2.json:2:\d+: invalid JSON"):
        load_stack(_repository(tmp_path, {"u2.json": '{"a": 1,\n ]'}), "u2.json")


def test_the_size_limit_is_configurable(tmp_path: Path) -> None:
    source = _repository(tmp_path, {"t.yaml": HEADER + "resources: {}\n" + "#" * 2000})
    assert "over the limit of 1024 bytes" in _error(source, limits=Limits(max_template_bytes=1024))
    assert load_stack(source, "t.yaml").resources == {}


def test_hidden_values_are_scrubbed_from_function_errors(tmp_path: Path) -> None:
    template = HEADER + (
        "parameters:\n  password: {type: string, hidden: true, default: hunter2-secret}\n"
        "resources:\n  r:\n    type: OS::Heat::None\n    properties:\n"
        "      p: {list_join: [',', [{get_param: password}, {str_split: [',', 'a', 3]}]]}\n"
        "      q: {Fn::Select: [0, {get_param: password}]}\n"
    ).replace("2018-08-31", "2015-04-30")
    source = _repository(tmp_path, {"t.yaml": template})
    message = _error(source)
    assert "hunter2-secret" not in message
