"""Building Python values from libyaml's event stream in one pass, within limits.

libyaml parses fast in C, but PyYAML's composer resolves every scalar's tag with Python regular
expressions and then constructs the nodes again in Python: for a 50,000-resource template that is
most of the load time. This builder consumes the C parser's events directly, resolves a plain
scalar's type only when its first character could start a non-string (YAML 1.1 rules, as PyYAML),
and checks on the way the nesting depth and the number of nodes aliases expand to. Timestamps stay
strings, as in Heat. Aliases share the anchored value, as PyYAML's loader does.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.resolver import Resolver

from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.limits import Limits

Parser: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

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


def _scalar(event: Any, path: str) -> Any:
    value: str = event.value
    tag = event.tag
    if tag is None or tag == "!":
        if not event.implicit[0]:
            return value
        tag = _implicit_tag(value)
    if tag in _STRING_TAGS:
        return value
    if tag == _TAG + "merge":
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


def build_yaml(path: str, text: str, limits: Limits) -> Any:
    """The value of the single YAML document in `text` (None when empty); `TemplateError` if invalid."""
    try:
        return _build(path, text, limits)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        reason = getattr(error, "problem", None) or str(error)
        context = getattr(error, "context", None)
        message = f"invalid YAML: {context + ', ' if context else ''}{reason}"
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        raise TemplateError([Problem(path, line, column, message)]) from None


def _build(path: str, text: str, limits: Limits) -> Any:  # noqa: PLR0912, PLR0915 - one hot event loop
    # The hot path (plain or quoted string scalars into lists and maps) is inlined on purpose.
    anchors: dict[str, tuple[Any, int]] = {}
    stack: list[_Open] = []
    root: list[Any] = []
    documents = 0
    event: Any
    scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
    mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
    implicit_first = _IMPLICIT
    for event in yaml.parse(text, Loader=Parser):
        kind = type(event)
        size = 1
        if kind is scalar_event:
            value = event.value
            if event.tag is not None or event.anchor is not None:
                value = _scalar(event, path)
                if event.anchor is not None:
                    anchors[event.anchor] = (value, 1)
            elif event.implicit[0] and (not value or value[0] in implicit_first):
                value = _scalar(event, path)
        elif kind is alias_event:
            if event.anchor not in anchors:
                raise TemplateError([_problem(path, event, f"unknown or recursive alias *{event.anchor}")])
            value, size = anchors[event.anchor]
        elif kind is mapping_start or kind is sequence_start:
            if len(stack) >= limits.max_yaml_depth:
                raise TemplateError(
                    [_problem(path, event, f"nesting deeper than {limits.max_yaml_depth} levels")]
                )
            if event.tag is not None:
                _check_tag(path, event)
            stack.append(_Open({} if kind is mapping_start else [], event.anchor, event))
            continue
        elif kind is mapping_end or kind is sequence_end:
            finished = stack.pop()
            value, size = finished.container, finished.size
            if finished.anchor is not None:
                anchors[finished.anchor] = (value, size)
        elif kind is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise TemplateError([_problem(path, event, "holds more than one YAML document")])
            continue
        else:
            continue
        if not stack:
            root.append(value)
            continue
        parent = stack[-1]
        parent.size += size
        if size > 1 and parent.size > limits.max_yaml_nodes:
            raise TemplateError(
                [_problem(path, event, f"expands to more than {limits.max_yaml_nodes} nodes (YAML aliases)")]
            )
        container = parent.container
        if type(container) is list:
            container.append(value)
        elif parent.key is _NO_KEY:
            if type(value) is dict or type(value) is list:
                raise TemplateError([_problem(path, event, "a mapping key must be a scalar")])
            parent.key = value
        else:
            key, parent.key = parent.key, _NO_KEY
            if key is _MERGE_KEY:
                _merge(path, event, container, value)
            else:
                container[key] = value
    return root[0] if root else None


def _check_tag(path: str, event: Any) -> None:
    tag = event.tag
    if tag not in (None, "!", _TAG + "map", _TAG + "seq"):
        raise TemplateError([_problem(path, event, f"unsupported YAML tag {tag!r}")])


def _merge(path: str, event: Any, container: dict[Any, Any], value: Any) -> None:
    sources = value if isinstance(value, list) else [value]
    for source in sources:
        if not isinstance(source, dict):
            raise TemplateError([_problem(path, event, "a YAML merge key (<<) needs a mapping")])
        for key, item in source.items():
            container.setdefault(key, item)
