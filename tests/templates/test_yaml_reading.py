"""YAML is read exactly as Heat reads it.

Heat reads templates with PyYAML's safe loader (YAML 1.1) and keeps timestamps as the strings
written. The reference here is that loader, pure Python; the builder must give the same values of
the same types in the same key order for every corpus file and every hand-made case, or fail at
the same line and column.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.templates import TemplateError
from reconciler.templates.limits import Limits
from reconciler.templates.yaml_building import build_yaml

CORPUS = Path(os.environ.get("RECONCILER_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpus"))
LIMITS = Limits(max_template_bytes=1 << 30)


class HeatLoader(yaml.SafeLoader):
    """The reference: PyYAML's pure-Python safe loader with timestamps kept as strings, as Heat."""


def _timestamp_as_written(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    assert isinstance(node, yaml.ScalarNode)
    return loader.construct_scalar(node)


HeatLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_written)


def exact(value: Any) -> Any:
    """`value` with every type and key order made part of equality (True is not 1, nan is nan)."""
    if isinstance(value, dict):
        return ("map", [(exact(key), exact(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("seq", [exact(item) for item in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def reference(text: str) -> Any:
    """What Heat's loader gives: ("value", exact value), ("error", line, column), or ("error",)
    where PyYAML fails without a position (a ValueError from a scalar it cannot convert)."""
    try:
        return ("value", exact(yaml.load(text, Loader=HeatLoader)))  # a safe loader
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        return ("error", mark.line + 1, mark.column + 1) if mark else ("error",)
    except ValueError:
        return ("error",)


def assert_reads_as_heat(text: str) -> None:
    expected, got = reference(text), built(text)
    assert got == expected or (expected == ("error",) and got[0] == "error")


def built(text: str) -> Any:
    """What the builder gives, in the same form."""
    try:
        return ("value", exact(build_yaml("t.yaml", text, LIMITS)))
    except TemplateError as error:
        return ("error", error.problems[0].line, error.problems[0].column)


def _corpus_texts() -> list[str]:
    if not CORPUS.is_dir():
        return []
    return sorted(path.relative_to(CORPUS).as_posix() for path in CORPUS.rglob("*") if path.is_file())


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the corpus is not at {CORPUS} (set RECONCILER_CORPUS)")
@pytest.mark.parametrize("path", _corpus_texts())
def test_corpus_file_reads_as_heat_reads_it(path: str) -> None:
    """Every corpus file (templates, environments, scripts alike) gives Heat's value or error."""
    try:
        text = (CORPUS / path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        pytest.skip(f"{path}: not UTF-8 text")
    assert_reads_as_heat(text)


EDGE_CASES = {
    "YAML 1.1 booleans": "a: [yes, No, ON, off, True, FALSE, y, n, Yes, oN]\n",
    "quoted booleans stay strings": "a: ['yes', \"no\", 'on', \"True\"]\n",
    "integers": "a: [0755, 0o755, 0x1F, -0x1F, 0b101, 1_000, +12, -0, 012345, 09]\n",
    "sexagesimal": "a: [1:30, 190:20:30, -1:30, 1:30.5, 190:20:30.15, 1:70]\n",
    "floats": "a: [1.5, 1e3, 1.0e3, 1.0e+3, .inf, -.Inf, .NaN, 6.8523015e+5, 685_230.15, 0.]\n",
    "nulls": "a: [~, null, Null, NULL, '', \"\"]\nb:\nc: ~\n",
    "dates stay strings": "a: 2018-08-31\nb: 2001-12-14t21:59:43.10-05:00\nc: 2001-12-14 21:59:43.10 -5\n",
    "version dates": "heat_template_version: 2013-05-23\nalso: '2013-05-23'\n",
    "explicit tags": "a: [!!str 123, !!int '12', !!float '1', !!bool 'yes', !!null '', !!str yes]\n",
    "binary": "a: !!binary aGVsbG8=\n",
    "non-specific tag": "a: ! 12\nb: ! yes\n",
    "quoted scalars": "a: '12'\nb: \"1:30\"\nc: 'it''s'\nd: \"tab\\tnew\\nline\"\n",
    "plain multi-line": "a: one\n  two\n\n  three\nb: x\n",
    "block scalars": "a: |\n  one\n   two\n\nb: >\n  folded\n  text\n\n  para\n"
    "c: |+\n  keep\n\n\nd: |-\n  strip\n",
    "anchors and aliases": "a: &x {k: v}\nb: *x\nc: &y [1, *x]\nd: [*y, *y]\n",
    "merge key": "base: &b {x: 1, y: 2}\nm:\n  z: 0\n  <<: *b\n  y: 3\n",
    "merge of a list": "a: &a {x: 1, w: 1}\nb: &b {x: 2, v: 2}\nm:\n  <<: [*a, *b]\n  u: 0\n",
    "merge of a list, explicit first": "a: &a {x: 1}\nb: &b {y: 2}\nm: {z: 0, <<: [*b, *a], x: 9}\n",
    "nested merges": "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nm: {<<: *b, z: 3}\n",
    "merge of an inline mapping": "m: {<<: {p: 1, q: 2}, q: 3}\n",
    "quoted merge key is a string": "a: &a {x: 1}\nm: {'<<': *a}\n",
    "duplicate keys": "a: 1\nb: 2\na: 3\n",
    "complex key": "? a\n: 1\n? [b]\n",
    "integer and boolean keys": "1: one\ntrue: t\n~: n\n1.5: f\n",
    "indentless sequence": "a:\n- 1\n- 2\nb: 3\n",
    "flow over lines": "a: {x: 1,\n  y: [2,\n  3]}\n",
    "comments": "# head\na: 1 # trailing\n# between\nb: 2\n",
    "document markers": "%YAML 1.1\n---\na: 1\n...\n",
    "empty document": "",
    "only a comment": "# nothing\n",
    "a scalar document": "just text\n",
    "a list document": "- 1\n- two\n",
    "CRLF line breaks": "a: 1\r\nb:\r\n  - x\r\n  - y\r\n",
    "byte order mark": "\ufeffa: 1\n",
    "unicode": 'name: caf\u00e9\nemoji: "\\U0001F600"\n',
    "undefined alias": "a: *nowhere\n",
    "bad integer tag": "a: !!int abc\n",
    "unknown tag": "a: !!python/object:os.system {}\n",
    "local tag": "a: !custom 1\n",
    "merge of a scalar": "m: {<<: 1}\n",
    "merge of a list holding a scalar": "a: &a {x: 1}\nm:\n  <<: [*a, 2]\n",
    "merge of an aliased scalar": "s: &s 1\nm: {<<: *s}\n",
    "merge of an aliased list holding a scalar": "a: &a {x: 1}\nl: &l [*a, 2]\nm: {<<: *l}\n",
    "merge of a list holding an aliased scalar": "a: &a {x: 1}\ns: &s 2\nm: {<<: [*a, *s]}\n",
    "merge key as a value": "a: <<\n",
    "merge key in a list": "- <<\n",
    "anchored merge key as a value": "k: &m <<\n",
    "anchored merge key reused as a key": "a: &a {x: 1}\nm: {&m <<: *a}\nn: {*m : *a}\n",
    "duplicate anchor": "a: &x 1\nb: &x 2\n",
    "mapping as a key": "? {a: 1}\n: 2\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "unclosed flow": "a: [1, 2\n",
    "bad indentation": "a:\n  b: 1\n c: 2\n",
    "tab indentation": "a:\n\tb: 1\n",
    "unterminated quote": "a: 'open\n",
}


@pytest.mark.parametrize("label", EDGE_CASES)
def test_edge_case_reads_as_heat_reads_it(label: str) -> None:
    """Each hand-made case gives Heat's value (types and key order included) or its error position."""
    assert_reads_as_heat(EDGE_CASES[label])


# Documents shaped as templates, assembled from pieces that are awkward to read.

HEADS = {
    "plain": "heat_template_version: 2018-08-31\nresources:\n",
    "directive": "%YAML 1.1\n---\nheat_template_version: 2018-08-31\nresources:\n",
    "tag directive": "%TAG !e! tag:example.com,2000:\n---\nheat_template_version: 2018-08-31\nresources:\n",
    "anchors before": "base: &base {type: T, properties: {a: 1}}\nresources:  # all of them\n",
    "comment after resources": "heat_template_version: 2018-08-31\nresources:\n# first the networks\n",
    "flow resources": "heat_template_version: 2018-08-31\nresources: {\n",
    "indented by four": "heat_template_version: 2018-08-31\nresources:\n    r_first: {type: T}\n",
}
TAILS = {
    "none": "",
    "outputs": "outputs:\n  o: {value: {get_attr: [r1, x]}}\n",
    "alias to the head": "outputs: *base\n",
    "alias to the middle": "outputs: *late\n",
    "document end": "...\n",
    "second document": "---\nb: 1\n",
    "resources again": "resources:\n  again: {type: T}\n",
    "merge into the root": "<<: {extra: 1}\n",
    "half indented": " stray: 1\n",
    "sequence at the root": "- item\n",
}
SNIPPETS = [
    "  r{i}:\n    type: OS::Heat::Value\n    properties: {{value: yes, n: 0755, t: 1:30, d: 2018-08-31}}\n",
    "  r{i}:\n    type: T\n    properties:\n      data: |\n        line\n\n        # kept\n  \n",
    "  r{i}:\n    type: T\n    properties:\n      data: |+\n        kept\n\n\n",
    '  r{i}: "opens here\n  r{i}q: inside the quotes"\n',
    "  r{i}: {{type: T,\n  r{i}f: 1}}\n",
    "  r{i}: &a{i}\n    type: T\n",
    "  r{i}: *a0\n",
    "  r{i}:\n    <<: *a0\n    type: U\n",
    "  <<: {{merged{i}: 1}}\n",
    "# section {i}\n",
    "\n",
    "  r{i}: word\n    continued\n",
    "  r1: duplicate\n",
    "  r{i}:\n  - a\n  - b\n",
    "  ? r{i}\n  : {{type: T}}\n",
    " r{i}: less indented\n",
    "  r{i}: *base\n",
    "  late: &late {{type: T}}\n",
    "  r{i}: [on, off, ~, 0x1f, 1_000, .inf]\n",
    "  r{i}:\n\ttab: 1\n",
    "  r{i}: 'single\n\n  quoted'\n",
    "  r{i}:\n    type: T\n    metadata:\n      deep: [[[[[1]]]]]\n",
    "---\n",
    "...\n",
]


def _template(head: str, snippets: list[int], tail: str, *, crlf: bool = False) -> str:
    text = head + "".join(SNIPPETS[index].format(i=number) for number, index in enumerate(snippets)) + tail
    return text.replace("\n", "\r\n") if crlf else text


@given(
    head=st.sampled_from(sorted(HEADS)),
    snippets=st.lists(st.integers(0, len(SNIPPETS) - 1), min_size=1, max_size=30),
    tail=st.sampled_from(sorted(TAILS)),
    crlf=st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_template_shaped_documents_read_as_heat_reads_them(
    head: str, snippets: list[int], tail: str, crlf: bool
) -> None:
    """Templates assembled from awkward pieces (quotes and flow spanning resources, anchors,
    merges, block scalars, document markers) give Heat's value, or are refused as Heat refuses
    them. Where such a document is broken, libyaml's parser and PyYAML's may stop at different
    places, so positions are compared on the hand-made cases and the corpus only."""
    text = _template(HEADS[head], snippets, TAILS[tail], crlf=crlf)
    expected, got = reference(text), built(text)
    assert got[0] == expected[0]
    if expected[0] == "value":
        assert got == expected
