"""A YAML template parsed one resource at a time gives the whole parse's value, reuses the resources
parsed before from the same text, and leaves every error to the whole parse, in the right place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reconciler.templates import Limits, MemoryBlockKeeper, MemorySource, TemplateError, load_stack
from reconciler.templates.block_parsing import parse_by_blocks
from reconciler.templates.yaml_building import build_yaml

from .snippets import ReadyCloud
from .test_yaml_reading import CORPUS

LIMITS = Limits()
SAMPLES = Path(__file__).resolve().parents[2] / "samples-repo"


def whole(text: str) -> Any:
    return build_yaml("t.yaml", text, LIMITS)


def assert_same_value(text: str) -> None:
    """Cold and warm, by blocks or whole: the same value, keys in the same order."""
    keeper = MemoryBlockKeeper()
    for _ in range(2):
        got = parse_by_blocks("t.yaml", text, LIMITS, keeper)
        if got is None:
            return  # not cut: the caller parses it whole
        expected = whole(text)
        assert got == expected
        assert list(got) == list(expected)
        assert list(got["resources"]) == list(expected["resources"])


def _templates() -> list[Path]:
    found = [path for path in SAMPLES.rglob("*.yaml")]
    if CORPUS.is_dir():
        found += [path for path in CORPUS.rglob("*.yaml")]
    return sorted(found)


@pytest.mark.parametrize("path", _templates(), ids=str)
def test_every_template_we_have_reads_the_same_by_blocks(path: Path) -> None:
    try:
        text = path.read_text(encoding="utf-8")
        whole(text)
    except (UnicodeDecodeError, TemplateError):
        pytest.skip("not a readable YAML document")
    assert_same_value(text)


HEAD = "heat_template_version: 2018-08-31\n"
CASES = {
    "block scalars keep their line breaks at a block's end and the text's": (
        HEAD
        + "resources:\n  a:\n    type: OS::Heat::Value\n    properties:\n      value: |+\n        x\n\n"
        + "  b:\n    type: OS::Heat::Value\n    properties:\n      value: |\n        y\n"
        + "  c:\n    type: OS::Heat::Value\n    properties:\n      value: |+\n        z\n\n"
    ),
    "no line break at the end": HEAD + "resources:\n  a:\n    type: OS::Heat::None",
    "comments and blank lines between resources": (
        HEAD + "resources:\n# lead\n\n  a:\n    type: OS::Heat::None\n  # between\n\n  b: {type: X}\n"
        "outputs:\n  o: {value: 1}\n"
    ),
    "CRLF line ends": HEAD.replace("\n", "\r\n") + "resources:\r\n  a:\r\n    type: OS::Heat::None\r\n",
    "a name written twice: its last body in its first place": (
        HEAD + "resources:\n  a: {type: A}\n  b: {type: B}\n  a: {type: C}\n"
    ),
    "a later resources key wins, as in the whole parse": (
        HEAD + "resources:\n  a: {type: A}\n'resources':\n"
    ),
    "an earlier resources key loses": HEAD + "'resources': {x: {type: X}}\nresources:\n  a: {type: A}\n",
    "an anchor used in another resource": (HEAD + "resources:\n  a: &base\n    type: A\n  b: *base\n"),
    "an anchor within one resource": (
        HEAD + "resources:\n  a:\n    type: A\n    properties: {x: &v 1, y: *v}\n"
    ),
    "a merge key inside a resource": HEAD + "resources:\n  a:\n    <<: {type: A}\n    metadata: {}\n",
    "flow style at the top": '{"heat_template_version": "2018-08-31", "resources": {"a": {"type": "A"}}}\n',
    "a resource line at column zero ends the section": HEAD + "resources:\n  a: {type: A}\nb: {type: B}\n",
    "a quoted scalar running onto the next lines": (
        HEAD + 'resources:\n  a:\n    type: A\n    properties:\n      v: "x\n  y"\n'
    ),
    "an empty section": HEAD + "resources:\noutputs: {}\n",
    "a list where resources are": HEAD + "resources:\n  - a\n  - b\n",
}


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_unusual_templates_read_the_same_by_blocks(text: str) -> None:
    try:
        whole(text)
    except TemplateError:
        keeper = MemoryBlockKeeper()
        assert parse_by_blocks("t.yaml", text, LIMITS, keeper) is None  # the whole parse reports it
        return
    assert_same_value(text)


def test_nesting_within_the_depth_limit_reads_the_same_and_beyond_it_is_left_to_the_whole_parse() -> None:
    limits = Limits(max_yaml_depth=5)
    at_limit = HEAD + "resources:\n  a:\n    properties:\n      x:\n        y: 1\n"
    over = HEAD + "resources:\n  a:\n    properties:\n      x:\n        y:\n          z: 1\n"
    assert parse_by_blocks("t.yaml", at_limit, limits, MemoryBlockKeeper()) == build_yaml(
        "t.yaml", at_limit, limits
    )
    with pytest.raises(TemplateError):
        build_yaml("t.yaml", over, limits)
    assert parse_by_blocks("t.yaml", over, limits, MemoryBlockKeeper()) is None


def template(count: int, changed: int | None = None) -> str:
    lines = [HEAD, "parameters:\n  size: {type: number, default: 1}\n", "resources:\n"]
    for index in range(count):
        value = "changed" if index == changed else f"v{index}"
        lines.append(f"  r{index}:\n    type: OS::Heat::Value\n    properties:\n      value: {value}\n")
    return "".join(lines)


def test_a_one_line_change_parses_one_resource() -> None:
    keeper = MemoryBlockKeeper()
    parse_by_blocks("t.yaml", template(100), LIMITS, keeper)
    assert keeper.parsed == 100
    changed = parse_by_blocks("t.yaml", template(100, changed=40), LIMITS, keeper)
    assert keeper.parsed == 101
    assert changed == whole(template(100, changed=40))


def test_blocks_are_kept_apart_per_path_and_limits() -> None:
    keeper = MemoryBlockKeeper()
    parse_by_blocks("a.yaml", template(3), LIMITS, keeper)
    parse_by_blocks("b.yaml", template(3), LIMITS, keeper)
    parse_by_blocks("a.yaml", template(3), Limits(max_yaml_depth=50), keeper)
    assert keeper.parsed == 9


def _problem(files: dict[str, str], keeper: MemoryBlockKeeper) -> tuple[str, int, str]:
    with pytest.raises(TemplateError) as raised:
        load_stack(MemorySource(files), "t.yaml", blocks=keeper)
    problem = raised.value.problems[0]
    return problem.file, problem.line, problem.message


def test_an_error_in_a_changed_resource_names_its_file_and_line_after_a_cached_parse() -> None:
    keeper = MemoryBlockKeeper()
    load_stack(MemorySource({"t.yaml": template(20)}), "t.yaml", blocks=keeper)
    broken = template(20).replace("      value: v12\n", "      value: v12\n      bogus: 1\n")
    file, line, message = _problem({"t.yaml": broken}, keeper)
    assert (file, line) == ("t.yaml", broken.splitlines().index("      bogus: 1") + 1)
    assert "bogus" in message


def test_a_syntax_error_in_a_changed_resource_names_its_line_after_a_cached_parse() -> None:
    keeper = MemoryBlockKeeper()
    load_stack(MemorySource({"t.yaml": template(20)}), "t.yaml", blocks=keeper)
    broken = template(20).replace("      value: v7\n", "      value: [v7\n")
    file, line, _ = _problem({"t.yaml": broken}, keeper)
    assert file == "t.yaml"
    assert line == whole_error_line(broken)


def whole_error_line(text: str) -> int:
    with pytest.raises(TemplateError) as raised:
        whole(text)
    return raised.value.problems[0].line


def test_an_unchanged_resource_is_checked_again_against_what_changed_around_it() -> None:
    """Its parse is reused; what it reads (here a parameter taken away) is still checked."""
    reading = template(10).replace("      value: v5\n", "      value: {get_param: size}\n")
    keeper = MemoryBlockKeeper()
    load_stack(MemorySource({"t.yaml": reading}), "t.yaml", blocks=keeper)
    without = reading.replace("parameters:\n  size: {type: number, default: 1}\n", "")
    file, line, message = _problem({"t.yaml": without}, keeper)
    assert (file, line) == ("t.yaml", without.splitlines().index("      value: {get_param: size}") + 1)
    assert "size" in message


STACK = {
    "t.yaml": (
        HEAD
        + "parameters:\n  word: {type: string, default: one}\n"
        + "resources:\n"
        + "  source:\n    type: OS::Heat::Value\n    properties: {value: {get_param: word}}\n"
        + "  reader:\n    type: OS::Heat::Value\n    properties:\n"
        + "      value: {list_join: ['-', [{get_attr: [source, value]}, {get_file: data.txt}]]}\n"
        + "  mapped:\n    type: My::Thing\n    properties: {word: {get_param: word}}\n"
        + "  nested:\n    type: child.yaml\n    properties: {word: {get_param: word}}\n"
    ),
    "child.yaml": (
        HEAD
        + "parameters:\n  word: {type: string}\n"
        + "resources:\n  inner:\n    type: OS::Heat::Value\n    properties: {value: {get_param: word}}\n"
        + "outputs:\n  said: {value: {get_attr: [inner, value]}}\n"
    ),
    "other.yaml": HEAD + "parameters:\n  word: {type: string}\nresources: {}\n",
    "data.txt": "first",
    "env.yaml": "resource_registry:\n  My::Thing: child.yaml\n",
}
CHANGES = {
    "a parameter's value": ({}, {"word": "two"}),
    "the environment": ({"env.yaml": "resource_registry:\n  My::Thing: other.yaml\n"}, {}),
    "a referenced resource": (
        {"t.yaml": STACK["t.yaml"].replace("value: {get_param: word}}\n  reader", "value: fixed}\n  reader")},
        {},
    ),
    "a get_file'd file": ({"data.txt": "second"}, {}),
    "a nested template": ({"child.yaml": STACK["child.yaml"].replace("{get_param: word}", "nested-now")}, {}),
}


def _view(files: dict[str, str], values: dict[str, str], keeper: MemoryBlockKeeper | None) -> Any:
    """Everything the loaded stack wants, nested stacks included, resolved as a cloud would."""
    definition = load_stack(MemorySource(files), "t.yaml", ["env.yaml"], values, blocks=keeper)
    cloud = ReadyCloud()
    view: dict[str, Any] = {"digest": definition.digest()}
    for name, resource in definition.resources.items():
        properties = definition.resolve_properties(name, cloud)
        view[name] = (resource.type, properties)
        nested = definition.nested(name, properties)
        if nested is not None:
            view[name + "/"] = {inner: nested.resolve_properties(inner, cloud) for inner in nested.resources}
    return view


@pytest.mark.parametrize(("changed", "values"), CHANGES.values(), ids=CHANGES.keys())
def test_a_kept_block_never_stands_for_what_it_reads(changed: dict[str, str], values: dict[str, str]) -> None:
    """After a load has kept every block, a change to something a block reads (but not to the
    block's own text) gives what a load with nothing kept gives."""
    keeper = MemoryBlockKeeper()
    before = _view(STACK, {}, keeper)
    after_files = {**STACK, **changed}
    after = _view(after_files, values, keeper)
    assert after == _view(after_files, values, None)
    assert after != before


@pytest.mark.parametrize(
    "changed",
    [
        "resources:\n  a: {type: A}\n  b: {type: B}\n  a: {type: D}\n",  # the last body parsed now
        "resources:\n  a: {type: E}\n  b: {type: B}\n  a: {type: C}\n",  # the first body parsed now
    ],
)
def test_a_name_written_twice_has_its_last_body_whichever_block_was_kept(changed: str) -> None:
    keeper = MemoryBlockKeeper()
    parse_by_blocks(
        "t.yaml", HEAD + "resources:\n  a: {type: A}\n  b: {type: B}\n  a: {type: C}\n", LIMITS, keeper
    )
    got = parse_by_blocks("t.yaml", HEAD + changed, LIMITS, keeper)
    assert got == whole(HEAD + changed)
    assert list(got["resources"]) == ["a", "b"]
