"""Reading YAML and JSON documents the way Heat does, safely, with positions for every error.

Heat parses templates with PyYAML's safe loader and keeps timestamps as strings, so
`heat_template_version: 2013-05-23` stays the string it was written as; the same holds here, built
from libyaml's C parser by `yaml_building` within the depth and alias-expansion limits. JSON
documents (the first non-blank character is `{`) are read with the json module, as Heat does.

Positions are computed only when an error needs one: the document is composed again into nodes and
walked along the error's path, so valid documents pay nothing for line numbers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from reconciler.templates.block_parsing import BlockKeeper, parse_blocks
from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.json_lines import parse_lines
from reconciler.templates.limits import Limits
from reconciler.templates.yaml_building import build_yaml

Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

PathKey = str | int


# A path inside a document: a root path is a tuple of keys and indexes; one step further down is
# the pair (path so far, key or index). Pairs cost a fraction of an object per node, and a path is
# flattened only when a problem is located. Keys are scalars, never tuples, so a pair whose first
# item is a tuple is a step.
Step = tuple[Any, PathKey]
Path = tuple[Any, ...]


def flat_path(path: Path) -> tuple[PathKey, ...]:
    """A path as a tuple of keys and indexes from the document's root."""
    keys: list[PathKey] = []
    while len(path) == 2 and type(path[0]) is tuple:
        keys.append(path[1])
        path = path[0]
    return (*path, *reversed(keys))


@dataclass
class Document:
    """A parsed file: its data, and the means to turn a path inside it into a line and column."""

    path: str
    text: str
    data: Any
    _root: yaml.Node | None = field(default=None, repr=False)
    # Each resource's block digest, when the template was parsed by blocks (none otherwise), and
    # the digest of the template's text outside those blocks.
    resource_digests: Mapping[str, bytes] = field(default_factory=dict, repr=False)
    skeleton_digest: bytes | None = field(default=None, repr=False)

    def locate(self, where: Path | Sequence[PathKey]) -> tuple[int, int]:
        """The 1-based line and column of the value at `where` (the nearest enclosing one found)."""
        if self._root is None:
            try:
                self._root = yaml.compose(self.text, Loader=Loader)
            except yaml.YAMLError:
                return (0, 0)
        node = self._root
        if node is None:
            return (1, 1)
        mark = node.start_mark
        for key in flat_path(where) if isinstance(where, tuple) else where:
            found = _child(node, key)
            if found is None:
                break
            key_node, node = found
            mark = (key_node or node).start_mark  # a map entry is located at its key
        return (mark.line + 1, mark.column + 1)

    def problem(self, where: Path | Sequence[PathKey], message: str) -> Problem:
        """A problem located at `where` in this document."""
        line, column = self.locate(where)
        return Problem(self.path, line, column, message)


def _child(node: yaml.Node, key: PathKey) -> tuple[yaml.Node | None, yaml.Node] | None:
    """The (key node, value node) of `key` in a mapping, or (None, item) of an index in a sequence."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(key):
                return key_node, value_node
        return None
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        return None, node.value[key]
    return None


def load_document(path: str, content: bytes, limits: Limits, blocks: BlockKeeper | None = None) -> Document:
    """Parse `content` (YAML or JSON) from `path` within `limits`; `TemplateError` when it cannot be.

    With `blocks`, a template's resources parsed before from the same text are reused (YAML in
    blocks, JSON written one resource per line)."""
    if len(content) > limits.max_template_bytes:
        raise TemplateError(
            [
                Problem(
                    path,
                    0,
                    0,
                    f"is {len(content)} bytes, over the limit of {limits.max_template_bytes} bytes",
                )
            ]
        )
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TemplateError([Problem(path, 0, 0, f"is not UTF-8 text ({error.reason})")]) from None
    as_json = text.lstrip().startswith("{")
    if blocks is not None:
        parse = parse_lines if as_json else parse_blocks
        parsed = parse(path, text, limits, blocks)
        if parsed is not None:
            return Document(path, text, parsed.data, None, parsed.resource_digests, parsed.skeleton_digest)
    if as_json:
        return Document(path, text, _load_json(path, text))
    return Document(path, text, build_yaml(path, text, limits))


def _load_json(path: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise TemplateError(
            [Problem(path, error.lineno, error.colno, f"invalid JSON: {error.msg}")]
        ) from None
