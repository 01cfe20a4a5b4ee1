"""What goes wrong in a template, and where: every problem names its file, line and column.

A `TemplateError` is permanent by nature: the same files give the same error until someone edits
them, so callers report it (status INVALID) and never retry it. `Unresolved` is the opposite: it
only says a value needs a resource that is not ready yet, and the engine asks again later.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, order=True)
class Problem:
    """One error or warning, located in a file (`line` and `column` are 1-based; 0 when unknown)."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column}: {self.message}"
        return f"{self.file}: {self.message}"


class TemplateError(Exception):
    """The template, an environment or a file they use is invalid; `.problems` says where and why."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems) or "invalid template")


class FunctionError(Exception):
    """An intrinsic function was given arguments it cannot work with (message as Heat words it).

    `where` is the path of the failing call in its document (a documents.Path), filled in by the
    evaluator.
    """

    def __init__(self, message: str, where: Any = None) -> None:
        super().__init__(message)
        self.where = where


class ResolutionError(FunctionError):
    """Well-formed arguments whose value cannot be made (str_replace_strict's missing params).

    Heat finds these when it resolves the value, not when it validates the template: in an
    output they are that output's error, and the stack stays valid.
    """


class Unresolved(Exception):
    """A value needs a resource's physical id or attribute that is not known yet."""

    def __init__(self, resource: str) -> None:
        super().__init__(f"resource {resource!r} is not ready")
        self.resource = resource
