"""Checking a large stack's snippets without a cloud in two processes, with the one-process result.

Checking without a cloud runs every function whose arguments are known; it is pure and done
snippet by snippet, so for a stack of thousands of resources a forked child checks the second
half and sends back only the problems it found (file, line, column, message), marshalled. The
result is the same list in the same order as checking everything here; if the child fails in any
way, this process checks the second half itself.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Sequence
from typing import Any

from reconciler.templates.errors import Problem
from reconciler.templates.forked_work import ForkedWork

# Below this many snippets a fork costs more than it saves (10,000 check in some 0.1 s).
PARALLEL_FROM_SNIPPETS = 10_000

Check = Callable[[Any], Problem | None]


def problems_in_two(
    snippets: Sequence[Any], check: Check, *, from_snippets: int = PARALLEL_FROM_SNIPPETS
) -> list[Problem]:
    """The problems `check` finds in `snippets`, in order, the second half checked by a child."""
    if len(snippets) < from_snippets:
        return _problems(snippets, check)
    # The first snippet is checked before the fork, so whatever checking sets up on first use
    # (function tables, their imports) is set up here once, not in both processes.
    first = _problems(snippets[:1], check)
    half = (len(snippets) + 1) // 2
    second_half = snippets[half:]
    child = ForkedWork.start(lambda: _encoded(_problems(second_half, check)))
    if child is None:
        return first + _problems(snippets[1:], check)
    try:
        first += _problems(snippets[1:half], check)
        payload = child.result()
    finally:
        child.close()
    if payload is None:
        return first + _problems(second_half, check)
    return first + [Problem(*fields) for fields in marshal.loads(payload)]


def _problems(snippets: Sequence[Any], check: Check) -> list[Problem]:
    return [problem for problem in map(check, snippets) if problem is not None]


def _encoded(problems: list[Problem]) -> bytes:
    return marshal.dumps(
        [(problem.file, problem.line, problem.column, problem.message) for problem in problems]
    )
