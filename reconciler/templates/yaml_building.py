"""Building Python values from libyaml's event stream in one pass, within limits.

libyaml parses fast in C, but PyYAML's composer resolves every scalar's tag with Python regular
expressions and then constructs the nodes again in Python: for a 50,000-resource template that is
most of the load time. This builder consumes the C parser's events directly, resolves a plain
scalar's type only when its first character could start a non-string (YAML 1.1 rules, as PyYAML),
and checks on the way the nesting depth and the number of nodes aliases expand to. Timestamps stay
strings, as in Heat. Aliases share the anchored value, an anchor defined twice is an error, and
merge keys (<<) give PyYAML's values in PyYAML's key order (merged pairs first); problems are
placed where PyYAML places them (tests/templates/test_yaml_reading.py compares the two). Unlike
PyYAML, an alias to a collection still open (a recursive structure) is refused.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.resolver import Resolver

from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.limits import Limits

try:  # libyaml's parser through PyYAML's C binding; PyYAML's own when it was built without libyaml
    from yaml._yaml import CParser as Parser
except ImportError:  # pragma: no cover - every wheel of PyYAML for this platform has libyaml
    Parser = yaml.SafeLoader  # type: ignore[assignment,misc]

_TAG = "tag:yaml.org,2002:"
_IMPLICIT = Resolver.yaml_implicit_resolvers
_CONSTRUCTOR = yaml.SafeLoader("")  # only its scalar construct_* methods are used
_SCALAR_CONSTRUCTORS = {
    _TAG + "int": _CONSTRUCTOR.construct_yaml_int,
    _TAG + "float": _CONSTRUCTOR.construct_yaml_float,
    _TAG + "bool": _CONSTRUCTOR.construct_yaml_bool,
    _TAG + "null": _CONSTRUCTOR.construct_yaml_null,
    _TAG + "binary": _CONSTRUCTOR.construct_yaml_binary,
}
_STRING_TAGS = {None, "!", _TAG + "str", _TAG + "timestamp", _TAG + "value"}
_MERGE_KEY = object()


class _Open:
    """A collection being built: the container, its pending key, anchor and expanded size."""

    __slots__ = ("anchor", "container", "event", "key", "size")

    def __init__(self, container: Any, anchor: str | None, event: Any) -> None:
        self.container = container
        self.anchor = anchor
        self.event = event
        self.key: Any = _NO_KEY
        self.size = 1


_NO_KEY = object()


def _implicit_tag(value: str) -> str | None:
    candidates = _IMPLICIT.get(value[0] if value else "")
    if candidates:
        for tag, pattern in candidates:
            if pattern.match(value):
                return tag  # type: ignore[no-any-return]
    return None


def _scalar(event: Any, path: str, stack: list[_Open]) -> Any:
    value: str = event.value
    tag = event.tag
    if tag is None or tag == "!":
        if not event.implicit[0]:
            return value
        tag = _implicit_tag(value)
    if tag in _STRING_TAGS:
        return value
    if tag == _TAG + "merge":
        _check_merge_key_place(path, event, stack)
        return _MERGE_KEY
    constructor = _SCALAR_CONSTRUCTORS.get(tag)
    if constructor is None:
        raise TemplateError([_problem(path, event, f"unsupported YAML tag {tag!r}")])
    try:
        return constructor(yaml.ScalarNode(tag, value, event.start_mark, event.end_mark))
    except (ValueError, yaml.YAMLError) as error:
        raise TemplateError([_problem(path, event, f"invalid {tag} value {value!r}: {error}")]) from None


def _problem(path: str, event: Any, message: str) -> Problem:
    mark = event.start_mark
    return Problem(path, mark.line + 1, mark.column + 1, message)


class AnchorRefused(Exception):
    """A document read with anchors refused defines one."""


def build_yaml(path: str, text: str, limits: Limits, *, refuse_anchors: bool = False) -> Any:
    """The value of the single YAML document in `text` (None when empty); `TemplateError` if invalid.

    With `refuse_anchors`, a document defining an anchor raises `AnchorRefused` instead (a piece of
    a template read apart, whose anchors only the whole document may place)."""
    try:
        return _build(path, text, limits, refuse_anchors)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        reason = getattr(error, "problem", None) or str(error)
        context = getattr(error, "context", None)
        message = f"invalid YAML: {context + ', ' if context else ''}{reason}"
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        raise TemplateError([Problem(path, line, column, message)]) from None


def _build(path: str, text: str, limits: Limits, refuse_anchors: bool) -> Any:  # noqa: PLR0912, PLR0915 - one hot event loop
    # The hot path (plain or quoted string scalars into lists and maps) is inlined on purpose.
    anchors: dict[str, tuple[Any, int, Any]] = {}  # name -> value, size, the event it starts at
    defined: set[str] = set()  # every anchor defined so far
    merges: dict[int, list[dict[Any, Any]]] = {}  # id of an open mapping -> what it merges, in order
    stack: list[_Open] = []
    finished: _Open | None = None  # the collection the latest end event closed
    document: Any = None
    documents = 0
    max_depth = limits.max_yaml_depth
    max_nodes = limits.max_yaml_nodes
    event: Any
    scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
    mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
    implicit_first = _IMPLICIT
    next_event: Any = Parser(text).get_event
    while (event := next_event()) is not None:
        kind = type(event)
        size = 1
        if kind is scalar_event:
            value = event.value
            if event.tag is not None or event.anchor is not None:
                if event.anchor is not None:
                    _define(path, event, defined, refuse_anchors)
                value = _scalar(event, path, stack)
                if event.anchor is not None:
                    anchors[event.anchor] = (value, 1, event)
            elif event.implicit[0] and (not value or value[0] in implicit_first):
                value = _scalar(event, path, stack)
        elif kind is alias_event:
            if event.anchor not in anchors:
                raise TemplateError([_problem(path, event, f"unknown or recursive alias *{event.anchor}")])
            value, size, _ = anchors[event.anchor]
            if value is _MERGE_KEY:
                _check_merge_key_place(path, event, stack)
        elif kind is mapping_start or kind is sequence_start:
            if len(stack) >= max_depth:
                raise TemplateError(
                    [_problem(path, event, f"nesting deeper than {limits.max_yaml_depth} levels")]
                )
            if event.anchor is not None:
                _define(path, event, defined, refuse_anchors)
            if event.tag is not None:
                _check_tag(path, event)
            stack.append(_Open({} if kind is mapping_start else [], event.anchor, event))
            continue
        elif kind is mapping_end or kind is sequence_end:
            finished = stack.pop()
            value, size = finished.container, finished.size
            if merges and id(finished) in merges:
                value = finished.container = _merged(merges.pop(id(finished)), value)
            if finished.anchor is not None:
                anchors[finished.anchor] = (value, size, finished.event)
        elif kind is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise TemplateError([_problem(path, event, "holds more than one YAML document")])
            continue
        else:
            continue
        if not stack:
            document = value
            continue
        parent = stack[-1]
        parent.size += size
        if size > 1 and parent.size > max_nodes:
            raise TemplateError(
                [_problem(path, event, f"expands to more than {limits.max_yaml_nodes} nodes (YAML aliases)")]
            )
        container = parent.container
        if type(container) is list:
            container.append(value)
        elif parent.key is _NO_KEY:
            if type(value) is dict or type(value) is list:
                origin = _origin(event, finished, anchors)
                raise TemplateError([_problem(path, origin, "a mapping key must be a scalar")])
            parent.key = value
        else:
            key, parent.key = parent.key, _NO_KEY
            if key is _MERGE_KEY:
                origin = _origin(event, finished, anchors)
                sources = _merge_sources(path, text, origin, value)
                merges.setdefault(id(parent), []).extend(sources)
            else:
                container[key] = value
    return document


def _origin(event: Any, finished: _Open | None, anchors: dict[str, tuple[Any, int, Any]]) -> Any:
    """The event a value's node starts at, as PyYAML places the node: an alias at its anchor, a
    collection at its start (`finished`: the collection `event` closed, if it closed one)."""
    if type(event) is yaml.AliasEvent:
        return anchors[str(event.anchor)][2]
    if type(event) in (yaml.MappingEndEvent, yaml.SequenceEndEvent) and finished is not None:
        return finished.event
    return event


def _merge_sources(path: str, text: str, origin: Any, value: Any) -> list[dict[Any, Any]]:
    """The mappings a merge key's value brings, in the order PyYAML applies them (later ones win):
    a list's mappings last to first, so that the first one listed wins."""
    if type(value) is dict:
        return [value]
    if type(value) is list:
        for index, item in enumerate(value):
            if type(item) is not dict:
                where = _sequence_item_start(text, origin, index) or origin
                raise TemplateError([_problem(path, where, "a YAML merge key (<<) needs a mapping")])
        return list(reversed(value))
    raise TemplateError([_problem(path, origin, "a YAML merge key (<<) needs a mapping or a list of them")])


def _merged(sources: list[dict[Any, Any]], explicit: dict[Any, Any]) -> dict[Any, Any]:
    """A mapping with merge keys as PyYAML builds it: the merged pairs first, then the mapping's
    own, each key where it first appears, with the last value given."""
    merged: dict[Any, Any] = {}
    for source in sources:
        merged.update(source)
    merged.update(explicit)
    return merged


def _sequence_item_start(text: str, sequence_start: Any, index: int) -> Any:
    """The event item `index` of the sequence starting at `sequence_start` starts at (an alias: at
    its anchor), found by reading the events again: only for an error's position."""
    anchors: dict[str, Any] = {}
    next_event: Any = Parser(text).get_event
    event: Any
    depth = -1  # levels inside the sequence; -1 until it starts
    count = 0
    while (event := next_event()) is not None:
        kind = type(event)
        anchor = getattr(event, "anchor", None)
        if anchor is not None and kind is not yaml.AliasEvent:
            anchors[anchor] = event
        if depth < 0:
            if kind is yaml.SequenceStartEvent and event.start_mark.index == sequence_start.start_mark.index:
                depth = 0
            continue
        if kind in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
            depth -= 1
            if depth < 0:
                return None
            continue
        if depth == 0:
            if count == index:
                return anchors.get(event.anchor) if kind is yaml.AliasEvent else event
            count += 1
        if kind in (yaml.MappingStartEvent, yaml.SequenceStartEvent):
            depth += 1
    return None


def _check_merge_key_place(path: str, event: Any, stack: list[_Open]) -> None:
    """A merge key (a plain <<) is only one as a mapping's key: PyYAML has no value for it."""
    parent = stack[-1] if stack else None
    if parent is None or type(parent.container) is not dict or parent.key is not _NO_KEY:
        raise TemplateError([_problem(path, event, "a YAML merge key (<<) is only allowed as a key")])


def _define(path: str, event: Any, defined: set[str], refuse: bool) -> None:
    """Note the anchor of `event`; as PyYAML, an anchor defined twice is an error."""
    if refuse:
        raise AnchorRefused(event.anchor)
    if event.anchor in defined:
        raise TemplateError([_problem(path, event, f"found duplicate anchor &{event.anchor}")])
    defined.add(event.anchor)


def _check_tag(path: str, event: Any) -> None:
    tag = event.tag
    if tag not in (None, "!", _TAG + "map", _TAG + "seq"):
        raise TemplateError([_problem(path, event, f"unsupported YAML tag {tag!r}")])
