"""The `yaql` function, evaluated by the yaql library within bounded memory, iterations and work.

Heat bounds yaql by its memory quota and iterator limit; those leave nested loops free to run for
seconds (range(100) inside range(100) makes two million Python calls). Here the work is bounded
too, deterministically and without a clock: a trace hook counts the calls the evaluation makes and
stops it past `Limits.yaql_max_calls`. The standard context is built once and every evaluation
gets a child of it. The yaql library is imported when a template first calls the function: most
never do, and importing it is a large share of a command's own work.
"""

from __future__ import annotations

import collections.abc  # noqa: F401 - yaql uses collections.abc without importing it
import sys
from collections.abc import Callable, Mapping
from functools import cache
from types import FrameType
from typing import Any

from reconciler.templates.errors import FunctionError
from reconciler.templates.evaluation import Evaluation


@cache
def _engine(memory_quota: int, limit_iterators: int) -> Any:
    import yaql

    options = {"yaql.limitIterators": limit_iterators, "yaql.memoryQuota": memory_quota}
    return yaql.factory.YaqlFactory().create(options=options)


@cache
def _root_context() -> Any:
    import yaql

    return yaql.create_context()


class _WorkExceeded(Exception):
    """The evaluation made more calls than allowed."""


def _bounded(run: Callable[[], Any], max_calls: int) -> Any:
    calls = 0

    def count(frame: FrameType, event: str, argument: Any) -> None:
        nonlocal calls
        calls += 1
        if calls > max_calls:
            raise _WorkExceeded

    previous = sys.gettrace()
    sys.settrace(count)
    try:
        return run()
    finally:
        sys.settrace(previous)


def evaluate_yaql(args: Any, scope: Evaluation) -> Any:
    """`yaql: {expression, data}`: the expression's value, with the data as `$.data`."""
    if not isinstance(args, Mapping) or set(args) != {"expression", "data"}:
        raise FunctionError('Arguments to "yaql" must be a map with the keys "expression" and "data"')
    expression = args["expression"]
    if not isinstance(expression, str):
        raise FunctionError('The "expression" argument to "yaql" must be a string')
    from yaql.language import exceptions as yaql_errors

    limits = scope.limits
    engine = _engine(limits.yaql_memory_quota, limits.yaql_limit_iterators)
    try:
        parsed = engine(expression)
        context = _root_context().create_child_context()
        return _bounded(
            lambda: parsed.evaluate(data={"data": args["data"]}, context=context), limits.yaql_max_calls
        )
    except _WorkExceeded:
        raise FunctionError(f"yaql: the expression needs more than {limits.yaql_max_calls} steps") from None
    except (yaql_errors.YaqlException, ValueError, TypeError, KeyError, IndexError) as error:
        raise FunctionError(f"Bad expression in yaql: {error}") from None
    except MemoryError:
        raise FunctionError("yaql: the expression exceeds the memory quota") from None
