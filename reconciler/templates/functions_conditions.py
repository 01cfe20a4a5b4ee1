"""Condition functions (equals, not, and, or, contains in conditions) and `if`.

A condition argument is a boolean, the name of a condition from the `conditions` section, or a
condition expression. `if` picks its branch from one; from wallaby its false branch may be left
out, and the property or item it stands for then disappears.
"""

from __future__ import annotations

from typing import Any

from reconciler.templates.errors import FunctionError
from reconciler.templates.evaluation import OMITTED, UNKNOWN, Evaluation


def condition_value(argument: Any, scope: Evaluation) -> Any:
    """The boolean an `if`, `not`, `and` or `or` argument stands for (UNKNOWN when validating)."""
    if isinstance(argument, bool):
        return argument
    if isinstance(argument, str):
        if argument not in scope.conditions:
            raise FunctionError(f"Invalid condition {argument!r}: no such condition is defined")
        return scope.conditions[argument]
    value = scope.evaluate(argument)
    if value is UNKNOWN:
        return UNKNOWN
    if not isinstance(value, bool):
        raise FunctionError(f"The condition value should be boolean, not {value!r}")
    return value


def equals(args: Any, scope: Evaluation) -> bool:
    """`equals: [a, b]`."""
    if not isinstance(args, list) or len(args) != 2:
        raise FunctionError('Arguments to "equals" must be of the form: [value_1, value_2]')
    return bool(args[0] == args[1])


def logical_not(args: Any, scope: Evaluation) -> Any:
    """`not: condition`."""
    value = condition_value(args, scope)
    return UNKNOWN if value is UNKNOWN else not value


def _operands(args: Any, name: str) -> list[Any]:
    if not isinstance(args, list) or len(args) < 2:
        raise FunctionError(f'Arguments to "{name}" must be of the form: [condition_1, condition_2, ...]')
    return args


def logical_and(args: Any, scope: Evaluation) -> Any:
    """`and: [condition, condition, ...]`."""
    values = [condition_value(argument, scope) for argument in _operands(args, "and")]
    if False in values:
        return False
    return UNKNOWN if UNKNOWN in values else True


def logical_or(args: Any, scope: Evaluation) -> Any:
    """`or: [condition, condition, ...]`."""
    values = [condition_value(argument, scope) for argument in _operands(args, "or")]
    if True in values:
        return True
    return UNKNOWN if UNKNOWN in values else False


def choose(args: Any, scope: Evaluation) -> Any:
    """`if: [condition, value_if_true, value_if_false]` (the last optional from wallaby)."""
    sizes = (2, 3) if scope.version.nullable_if else (3,)
    if not isinstance(args, list) or len(args) not in sizes:
        raise FunctionError(
            'Arguments to "if" must be of the form: [condition_name, value_if_true, value_if_false]'
        )
    value = condition_value(args[0], scope)
    if value is UNKNOWN:
        return UNKNOWN
    if value:
        return scope.evaluate(args[1])
    return scope.evaluate(args[2]) if len(args) == 3 else OMITTED
