"""A template snippet parsed once: intrinsic function calls become `Call` nodes, data stays data.

Which one-key maps are calls depends on the template version (versions.py). A map whose key is a
function the version lacks stays plain data, with a warning naming the first version that has the
function; a function the version removed is an error. Parsing also records what the snippet
refers to (resources for the dependency graph, parameters, conditions), so nothing walks it again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from reconciler.templates.documents import Path, PathKey
from reconciler.templates.versions import ALL_FUNCTIONS, TemplateVersion, first_version_with

Where = tuple[PathKey, ...]
_CONTAINERS = (dict, list)


def _literal_path(args: Any, shortest: int) -> bool:
    return (
        isinstance(args, list)
        and len(args) >= shortest
        and isinstance(args[0], str)
        and all(type(item) in (str, int) for item in args)
    )


class Call(NamedTuple):
    """An intrinsic function call: its name, parsed arguments and where it is written.

    A named tuple: a template of 50,000 resources holds hundreds of thousands of calls.
    """

    name: str
    args: Any
    where: Path  # flattened only when a problem is reported


_new_call = tuple.__new__  # a Call without the named tuple's Python-level __new__ (the hot path)


class References:
    """What a snippet refers to: resources (with the calls' positions) and parameters.

    A plain class with slots: one is made per resource.
    """

    __slots__ = ("conditions", "files", "has_if", "needs_evaluation", "parameters", "resources")

    def __init__(self) -> None:
        self.resources: dict[str, Path] = {}
        self.parameters: dict[str, Path] = {}
        self.conditions: dict[str, Path] = {}
        self.files: dict[str, Path] = {}
        self.has_if = False
        # Whether any call needs evaluating to be checked: everything but get_param, get_resource,
        # get_attr and get_file with literal arguments, which parsing checks completely.
        self.needs_evaluation = False


@dataclass
class Parser:
    """Parses snippets for one template version, reporting problems and warnings by path."""

    version: TemplateVersion
    report_error: Callable[[Path, str], None]
    report_warning: Callable[[Path, str], None]
    in_conditions: bool = False
    _warned: set[str] = field(default_factory=set)
    # Looked up once per parser, not per node: the names that may start a call, and those that
    # are plain calls here (admitted, not removed).
    _call_names: frozenset[str] = field(init=False, repr=False)
    _plain_calls: frozenset[str] = field(init=False, repr=False)
    _for_conditions: Parser | None = field(default=None, init=False, repr=False)
    # How many function names the version removed, does not admit or lacks were met (warned once
    # per name: a snippet holding one is reported only if it comes first).
    unusual: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        self._call_names = ALL_FUNCTIONS | self.version.removed
        self._plain_calls = self.admitted - self.version.removed

    @property
    def admitted(self) -> frozenset[str]:
        return self.version.condition_functions if self.in_conditions else self.version.functions

    def parse(self, data: Any, where: Where, references: References) -> Any:
        """`data` with every call admitted by the version turned into a `Call`."""
        return self._parse(data, where, references)

    def _parse(self, data: Any, at: Path, references: References) -> Any:
        # The hot loop of a load: paths are linked steps, flattened only where a call or a problem
        # needs one, and scalars are copied without a call.
        kind = type(data)
        if kind is dict:
            if len(data) == 1:
                for key, value in data.items():
                    if key in self._call_names:
                        return self._call(key, value, at, references)
            parsed = {}
            for key, value in data.items():
                kind = type(value)
                parsed[key] = (
                    self._parse(value, (at, key), references) if kind is dict or kind is list else value
                )
            return parsed
        if kind is list:
            items = []
            for index, value in enumerate(data):
                kind = type(value)
                items.append(
                    self._parse(value, (at, index), references) if kind is dict or kind is list else value
                )
            return items
        return data

    def _call(self, name: str, raw_args: Any, where: Path, references: References) -> Any:
        if name not in self._plain_calls:
            return self._unusual_call(name, raw_args, where, references)
        call_where = (where, name)
        kind = type(raw_args)
        if name == "if" and isinstance(raw_args, list) and raw_args and not self.in_conditions:
            condition = self.conditions_parser()._parse(raw_args[0], (call_where, 0), references)
            rest = [
                self._parse(item, (call_where, index + 1), references)
                for index, item in enumerate(raw_args[1:])
            ]
            args: Any = [condition, *rest]
        elif kind is dict or kind is list:
            args = self._parse(raw_args, call_where, references)
        else:
            args = raw_args
        self._record(name, args, call_where, references)
        return _new_call(Call, (name, args, call_where))

    def _unusual_call(self, name: str, raw_args: Any, where: Path, references: References) -> Any:
        """A function name the version removed, does not admit here, or has not got yet."""
        self.unusual += 1
        if name in self.version.removed:
            self.report_error(where, f'The function "{name}" is not supported in this version of HOT.')
            return None
        if self.in_conditions and name in self.version.functions:
            # As Heat: a resource function inside a condition is an error there, not data.
            self.report_error(where, f'The function "{name}" is invalid in this context')
            return None
        self._warn_unadmitted(name, where)
        return {name: self._parse(raw_args, (where, name), references)}

    def conditions_parser(self) -> Parser:
        """A parser for condition expressions of the same version, reporting to the same place."""
        if self.in_conditions:
            return self
        if self._for_conditions is None:
            self._for_conditions = Parser(
                self.version, self.report_error, self.report_warning, in_conditions=True, _warned=self._warned
            )
        return self._for_conditions

    def _warn_unadmitted(self, name: str, where: Path) -> None:
        first = first_version_with(name, in_conditions=self.in_conditions)
        if name in self._warned:
            return
        self._warned.add(name)
        place = "the conditions section" if self.in_conditions else "this template"
        since = f"; it is a function from heat_template_version {first.name}" if first else ""
        self.report_warning(
            where,
            f'"{name}" is plain data in {place} (heat_template_version {self.version.name}){since}',
        )

    def _record(self, name: str, args: Any, where: Path, references: References) -> None:
        # The four functions parsing checks completely come first: they are most calls.
        if name == "get_param":
            parameter = args[0] if isinstance(args, list) and args else args
            if isinstance(parameter, str):
                references.parameters.setdefault(parameter, where)
            checked = isinstance(args, str) or _literal_path(args, 1)
        elif name == "get_attr":
            if isinstance(args, list) and args and isinstance(args[0], str):
                references.resources.setdefault(args[0], where)
            checked = _literal_path(args, 2)
        elif name in {"get_resource", "Ref"}:
            if isinstance(args, str) and (name == "get_resource" or not args.startswith("OS::")):
                references.resources.setdefault(args, where)
            checked = name == "get_resource" and isinstance(args, str)
        elif name == "get_file":
            if isinstance(args, str):
                references.files.setdefault(args, where)
            checked = isinstance(args, str)
        else:
            if name == "if":
                references.has_if = True
                if isinstance(args, list) and args and isinstance(args[0], str):
                    references.conditions.setdefault(args[0], where)
            checked = False
        if not checked:
            references.needs_evaluation = True
