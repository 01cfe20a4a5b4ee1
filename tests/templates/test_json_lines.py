"""A JSON template written one resource per line is parsed a line at a time to the value the whole
parse gives, whatever spaces and line ends its lines carry; a layout that is not one resource per
line is left to the whole parse."""

from __future__ import annotations

import json

import pytest

from reconciler.templates import Limits, MemoryBlockKeeper
from reconciler.templates.json_lines import parse_lines

HEAD = '{"heat_template_version": "2018-08-31", "resources": {\n'
A = '  "a": {"type": "OS::Heat::None"}'
B = '  "b": {"type": "OS::Heat::Value", "properties": {"value": [1, "x,\\n"]}}'
TAIL = "\n}}\n"

CUT = {
    "commas ending the lines": HEAD + A + ",\n" + B + TAIL,
    "spaces after a comma": HEAD + A + ",  \n" + B + TAIL,
    "spaces before a comma": HEAD + A + " ,\n" + B + TAIL,
    "CRLF line ends": (HEAD + A + ",\n" + B + TAIL).replace("\n", "\r\n"),
    "spaces after the last line": HEAD + A + ",\n" + B + "   " + TAIL,
    "one resource": HEAD + A + TAIL,
    "a name written twice": HEAD + A + ",\n" + B + ",\n" + A.replace("None", "Value") + TAIL,
}

NOT_CUT = {
    "a blank line between resources": HEAD + A + ",\n\n" + B + TAIL,
    "a comma after the last line": HEAD + A + ",\n" + B + "," + TAIL,
    "a line without its comma": HEAD + A + "\n" + B + TAIL,
}


@pytest.mark.parametrize("text", CUT.values(), ids=CUT.keys())
def test_a_template_cut_at_its_lines_parses_as_the_whole(text: str) -> None:
    keeper = MemoryBlockKeeper()
    parsed = parse_lines("t.json", text, Limits(), keeper)
    assert parsed is not None
    assert parsed.data == json.loads(text)
    assert list(parsed.data["resources"]) == list(json.loads(text)["resources"])
    again = parse_lines("t.json", text, Limits(), keeper)  # every line found kept
    assert again is not None and again.data == json.loads(text)


@pytest.mark.parametrize("text", NOT_CUT.values(), ids=NOT_CUT.keys())
def test_a_template_not_written_one_resource_per_line_is_left_to_the_whole_parse(text: str) -> None:
    assert parse_lines("t.json", text, Limits(), MemoryBlockKeeper()) is None
