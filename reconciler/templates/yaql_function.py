"""The `yaql` function, evaluated by the yaql library within Heat's memory and iteration limits."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import yaql
from yaql.language import exceptions as yaql_errors

from reconciler.templates.errors import FunctionError
from reconciler.templates.evaluation import Evaluation


@cache
def _engine(memory_quota: int, limit_iterators: int) -> Any:
    options = {"yaql.limitIterators": limit_iterators, "yaql.memoryQuota": memory_quota}
    return yaql.factory.YaqlFactory().create(options=options)


def evaluate_yaql(args: Any, scope: Evaluation) -> Any:
    """`yaql: {expression, data}`: the expression's value, with the data as `$.data`."""
    if not isinstance(args, Mapping) or set(args) != {"expression", "data"}:
        raise FunctionError('Arguments to "yaql" must be a map with the keys "expression" and "data"')
    expression = args["expression"]
    if not isinstance(expression, str):
        raise FunctionError('The "expression" argument to "yaql" must be a string')
    engine = _engine(scope.limits.yaql_memory_quota, scope.limits.yaql_limit_iterators)
    try:
        parsed = engine(expression)
        context = yaql.create_context()
        return parsed.evaluate(data={"data": args["data"]}, context=context)
    except (yaql_errors.YaqlException, ValueError, TypeError, KeyError, IndexError) as error:
        raise FunctionError(f"Bad expression in yaql: {error}") from None
    except MemoryError:
        raise FunctionError("yaql: the expression exceeds the memory quota") from None
