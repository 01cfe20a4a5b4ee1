"""Building a large YAML template in two processes, with exactly the one-process result.

PyYAML hands libyaml's events to Python one object at a time, and for a template of many megabytes
making those objects is most of the load. A second core halves it: the `resources` section is cut
at a line where a resource starts; this process builds the document up to there (and the sections
after the resources), a forked child builds the rest of the resources and sends them back through
a pipe, marshalled.

Cutting YAML as text is only sound where libyaml is in the same state in the piece as in the
whole, so every piece is built by the same builder and its outline is checked against what the
whole document would have done there:

- the head (the text before the cut) is one document without directives or an explicit end, and
  the last thing under its root is the `resources` block mapping, indented as the cut line and
  still open where the text ends: so libyaml is outside any quoted scalar or flow collection
  there, and a line at that indentation ends any block or plain scalar and starts the next key;
- the middle (the cut line up to the first content line indented less) is one block mapping
  starting on its first line at the cut line's column, without a document marker or a merge key
  (`<<`) in its root: the same keys, values and aliases the whole document gives there;
- the tail (the rest, if any) is one block mapping starting on its first line at column 0, with
  no merge key in its root: the root's later keys.

An alias to an anchor of another piece is an unknown alias in its piece; an anchor defined in two
pieces is refused as in one process (PyYAML refuses an anchor defined twice). Nesting depth is counted
from the level the middle sits at; the nodes aliases expand to are summed over the pieces. On any
problem in any piece, or an outline that does not fit, the caller builds the whole document in
one process as before, so an invalid document gets exactly the one-process errors, with their
lines and columns.
"""

from __future__ import annotations

import marshal
import re
from typing import Any

from reconciler.templates.errors import TemplateError
from reconciler.templates.forked_work import ForkedWork
from reconciler.templates.limits import Limits
from reconciler.templates.yaml_building import BuiltDocument, build_document

# Below this size a fork costs more than it saves (a 512 KiB template builds in some 0.1 s).
PARALLEL_FROM_CHARS = 4 * 1024 * 1024
# The share of the resources section the child builds: this process also builds the head's
# sections and unmarshals what the child sends.
CHILD_SHARE = 0.52

_RESOURCES_LINE = re.compile(r"^resources:[ \t]*(?:#[^\n]*)?\r?\n", re.MULTILINE)
_CONTENT_LINE = re.compile(r"\n( *)[^ \t\r\n#]")


def build_in_two(
    path: str,
    text: str,
    limits: Limits,
    *,
    from_chars: int = PARALLEL_FROM_CHARS,
    child_share: float = CHILD_SHARE,
) -> dict[Any, Any] | None:
    """The root mapping of the YAML document `text`, built by two processes; None when `text` is
    shorter than `from_chars`, does not cut cleanly, or has a problem (the caller then builds it in
    one). `child_share`: about how much of the resources section the child builds."""
    if len(text) < from_chars:
        return None
    cut = _cut(text, child_share)
    if cut is None:
        return None
    middle_start, tail_start, indent = cut
    middle_text = text[middle_start:tail_start]
    child = ForkedWork.start(lambda: _middle(path, middle_text, limits, indent))
    if child is None:
        return None
    try:
        parts = _build_head_and_tail(path, text, limits, cut)
        payload = child.result() if parts is not None else None
    finally:
        child.close()
    if parts is None or payload is None:
        return None
    middle, middle_size, middle_anchors = marshal.loads(payload)
    return _joined(parts, (middle, middle_size, set(middle_anchors)), limits)


def _cut(text: str, child_share: float) -> tuple[int, int, int] | None:
    """Where the middle starts and ends, and the indentation of the resources' keys."""
    resources = _RESOURCES_LINE.search(text)
    if resources is None:
        return None
    first = _CONTENT_LINE.search(text, resources.end() - 1)
    indent = len(first.group(1)) if first else 0
    if first is None or indent == 0:
        return None
    dedent = re.compile(rf"\n {{0,{indent - 1}}}[^ \t\r\n#]").search(text, first.end())
    tail_start = dedent.start() + 1 if dedent else len(text)
    target = first.start() + int((tail_start - first.start()) * (1 - child_share))
    key_line = re.compile(rf"\n {{{indent}}}[A-Za-z0-9_]").search(text, target, tail_start)
    if key_line is None:
        return None
    return key_line.start() + 1, tail_start, indent


def _middle(path: str, text: str, limits: Limits, indent: int) -> bytes | None:
    """In the child: the middle built and marshalled, if its outline fits."""
    middle = build_document(path, text, limits, depth=1)
    if not _middle_fits(middle, indent):
        return None
    return marshal.dumps((middle.value, middle.size, list(middle.anchors)))


def _build_head_and_tail(
    path: str, text: str, limits: Limits, cut: tuple[int, int, int]
) -> tuple[BuiltDocument, BuiltDocument | None] | None:
    middle_start, tail_start, indent = cut
    try:
        head = build_document(path, text[:middle_start], limits)
        tail = build_document(path, text[tail_start:], limits) if tail_start < len(text) else None
    except TemplateError:
        return None
    if not _head_fits(head, indent) or (tail is not None and not _tail_fits(tail)):
        return None
    return head, tail


def _joined(
    parts: tuple[BuiltDocument, BuiltDocument | None],
    middle: tuple[dict[Any, Any], int, set[str]],
    limits: Limits,
) -> dict[Any, Any] | None:
    head, tail = parts
    middle_value, middle_size, middle_anchors = middle
    tail_anchors = tail.anchors if tail is not None else set()
    if head.anchors & middle_anchors or (head.anchors | middle_anchors) & tail_anchors:
        return None  # an anchor defined twice: the one-process build says where
    size = head.size + middle_size - 1 + (tail.size - 1 if tail is not None else 0)
    if size > limits.max_yaml_nodes:
        return None  # the one-process build reports where the aliases expand past the limit
    root: dict[Any, Any] = head.value
    root["resources"].update(middle_value)  # later keys win, in the place of the first: as in one build
    if tail is not None:
        root.update(tail.value)
    return root


def _head_fits(head: BuiltDocument, indent: int) -> bool:
    resources = head.last_under_root
    return (
        head.start is not None
        and head.start.version is None
        and head.start.tags is None
        and head.end is not None
        and not head.end.explicit
        and type(head.value) is dict
        and _block_mapping_at(head.root, None, 0)
        and resources is not None
        and type(head.value.get("resources")) is dict
        and resources.container is head.value["resources"]
        and _block_mapping_at(resources, None, indent)
        and _position(head.last_under_root_end) == _position(head.stream_end)
    )


def _middle_fits(middle: BuiltDocument, indent: int) -> bool:
    return (
        middle.start is not None
        and not middle.start.explicit
        and middle.end is not None
        and not middle.end.explicit
        and type(middle.value) is dict
        and _block_mapping_at(middle.root, 0, indent)
        and not middle.merged_into_root
    )


def _tail_fits(tail: BuiltDocument) -> bool:
    return (
        tail.start is not None
        and not tail.start.explicit
        and type(tail.value) is dict
        and _block_mapping_at(tail.root, 0, 0)
        and not tail.merged_into_root
    )


def _block_mapping_at(collection: Any, line: int | None, column: int) -> bool:
    """Whether `collection` (an open collection of the builder) is a block mapping starting at
    `column` (and on `line`, unless None)."""
    if collection is None or type(collection.container) is not dict:
        return False
    start = collection.event
    mark = start.start_mark
    return start.flow_style is False and mark.column == column and (line is None or mark.line == line)


def _position(event: Any) -> tuple[int, int] | None:
    return None if event is None else (event.start_mark.line, event.start_mark.column)
