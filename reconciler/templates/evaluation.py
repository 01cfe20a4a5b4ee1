"""Evaluating parsed snippets: parameters, conditions, resources' ids and attributes, files.

One `Evaluation` holds what a stack definition knows (typed parameters, which resources exist,
condition values, files read with get_file, the facade of the resource that owns a nested stack)
plus the `AttributeSource` that knows live values. A value that needs a resource not ready yet
raises `Unresolved` from the source; when `validating`, that becomes the `UNKNOWN` marker instead
and every function given an unknown argument answers unknown, so one pass can check every function
whose arguments are known without a cloud.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

from reconciler.templates.errors import FunctionError, Unresolved
from reconciler.templates.limits import Limits
from reconciler.templates.nodes import Call
from reconciler.templates.versions import TemplateVersion


class AttributeSource(Protocol):
    """Live values of resources; either method raises `Unresolved(resource)` when not known yet."""

    def physical_id(self, resource: str) -> str:
        """The physical id of `resource` (what get_resource gives)."""
        ...

    def attribute(self, resource: str, name: str) -> Any:
        """The attribute `name` of `resource` ("" asks for every attribute as one map)."""
        ...


class NoCloud:
    """An `AttributeSource` that knows nothing: what validation without a cloud can see."""

    def physical_id(self, resource: str) -> str:
        raise Unresolved(resource)

    def attribute(self, resource: str, name: str) -> Any:
        raise Unresolved(resource)


class _Unknown:
    """A value only a live cloud could give (or a parameter without a value), during validation."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


class _Omitted:
    """The value of a wallaby `if` whose chosen branch is absent: the key or item disappears."""

    def __repr__(self) -> str:
        return "OMITTED"


OMITTED = _Omitted()


def is_unknown(value: Any) -> bool:
    """Whether `value` holds an unknown part anywhere."""
    if value is UNKNOWN:
        return True
    kind = type(value)
    if kind is dict:
        items: Any = value.values()
    elif kind is list:
        items = value
    else:
        return False
    for item in items:
        if item is UNKNOWN:
            return True
        kind = type(item)
        if (kind is dict or kind is list) and is_unknown(item):
            return True
    return False


@dataclass(frozen=True)
class Facade:
    """What `resource_facade` reads: the resource that owns this nested stack, as written."""

    metadata: Any = None
    deletion_policy: Any = "Delete"
    update_policy: Any = None


@cache
def _function_tables() -> tuple[
    Mapping[str, Callable[[Any, Evaluation], Any]], Mapping[str, Callable[[Any, Evaluation], Any]]
]:
    # The function modules import this one, so the table is imported on first use.
    from reconciler.templates.function_table import FUNCTIONS, LAZY_FUNCTIONS

    return FUNCTIONS, LAZY_FUNCTIONS


@dataclass
class Evaluation:
    """Everything functions may read while evaluating one stack's snippets."""

    version: TemplateVersion
    parameters: Mapping[str, Any]
    resources: frozenset[str]  # resources present (conditions applied)
    all_resources: frozenset[str]  # every resource the template names
    source: AttributeSource
    files: Mapping[str, str] = field(default_factory=dict)
    conditions: Mapping[str, bool] = field(default_factory=dict)
    facade: Facade = field(default_factory=Facade)
    limits: Limits = field(default_factory=Limits)
    validating: bool = False
    group_resources: frozenset[str] = frozenset()  # resources whose get_attr paths apply per member

    def evaluate(self, node: Any) -> Any:
        """The value of a parsed snippet."""
        # The hot path of validation: scalars are taken as they are, without a call.
        kind = type(node)
        if kind is Call:
            return self.call(node)
        if kind is dict:
            result = {}
            for key, item in node.items():
                kind = type(item)
                if kind is Call:
                    value = self.call(item)
                else:
                    value = self.evaluate(item) if kind is dict or kind is list else item
                if value is not OMITTED:
                    result[key] = value
            return result
        if kind is list:
            items = []
            for item in node:
                kind = type(item)
                if kind is Call:
                    value = self.call(item)
                else:
                    value = self.evaluate(item) if kind is dict or kind is list else item
                if value is not OMITTED:
                    items.append(value)
            return items
        return node

    def call(self, node: Call) -> Any:
        name, args, where = node
        functions, lazy_functions = _function_tables()
        lazy = lazy_functions.get(name)
        if lazy is not None:
            try:
                return lazy(args, self)
            except FunctionError as error:
                if error.where is None:
                    error.where = where
                raise
        kind = type(args)
        if kind is Call or kind is dict or kind is list:
            args = self.evaluate(args)
            if self.validating and is_unknown(args):
                return UNKNOWN
        elif args is UNKNOWN and self.validating:
            return UNKNOWN
        try:
            return functions[name](args, self)
        except FunctionError as error:
            if error.where is None:
                error.where = where
            raise

    def live_value(self, what: str) -> Any:
        """A value only the cloud knows that belongs to no resource (e.g. availability zones)."""
        if self.validating:
            return UNKNOWN
        raise Unresolved(what)

    def live(self, resource: str, read: Callable[[], Any]) -> Any:
        """A live value of `resource`: None when it is absent by condition, unknown when validating."""
        if resource not in self.resources:
            if resource in self.all_resources:
                return None
            raise FunctionError(f'The specified reference "{resource}" is not a resource of this template.')
        if self.validating and type(self.source) is NoCloud:
            return UNKNOWN  # what NoCloud would answer, without raising and catching Unresolved
        try:
            return read()
        except Unresolved:
            if self.validating:
                return UNKNOWN
            raise
