"""A stack's `{from_stack: X, output: Y}` parameters, resolved from the outputs of the stacks they name.

The one resolver `reconciler apply` and the daemon share, so both read wiring alike: a stack named
whose outputs are not known yet is waited for, and an output the named stack does not have makes
the wired stack INVALID with the stack and the output named (never a silent None). It is pure: the
caller hands in the outputs it has read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.templates.errors import Problem
from reconciler.templates.repository_config import StackOutputRef, StackSpec

# problems of wiring are problems of `reconciler.yaml`, where the wiring is written
WIRING_FILE = "reconciler.yaml"


@dataclass(frozen=True)
class ResolvedParameters:
    """Every parameter a plain value, ready for `load_stack`."""

    values: Mapping[str, Any]


@dataclass(frozen=True)
class AwaitingOutputs:
    """Stacks named by `from_stack` that have no outputs yet: resolve again once they converge."""

    stacks: frozenset[str]


@dataclass(frozen=True)
class MissingOutputs:
    """Outputs named by `from_stack` that their stacks do not have: the wired stack is INVALID."""

    problems: tuple[Problem, ...]


ParameterResolution = ResolvedParameters | AwaitingOutputs | MissingOutputs


def wired_stacks(spec: StackSpec) -> frozenset[str]:
    """The stacks whose outputs `spec`'s parameters read."""
    return frozenset(value.stack for value in spec.parameters.values() if isinstance(value, StackOutputRef))


def resolve_parameters(spec: StackSpec, outputs: Mapping[str, Mapping[str, Any]]) -> ParameterResolution:
    """`spec`'s parameters with every `{from_stack, output}` replaced by that output's value.

    `outputs` holds, by stack name, the outputs of each stack that has them; a wired stack absent
    from it has none yet. A missing output outweighs waiting: waiting would not make it appear.
    """
    values: dict[str, Any] = {}
    awaited: set[str] = set()
    problems: list[Problem] = []
    for name, value in spec.parameters.items():
        if not isinstance(value, StackOutputRef):
            values[name] = value
        elif value.stack not in outputs:
            awaited.add(value.stack)
        elif value.output not in outputs[value.stack]:
            problems.append(_missing_output(spec.name, name, value))
        else:
            values[name] = outputs[value.stack][value.output]
    if problems:
        return MissingOutputs(tuple(problems))
    if awaited:
        return AwaitingOutputs(frozenset(awaited))
    return ResolvedParameters(values)


def _missing_output(stack: str, parameter: str, wiring: StackOutputRef) -> Problem:
    message = f"stack {wiring.stack!r} has no output {wiring.output!r}"
    return Problem(WIRING_FILE, 0, 0, f"stack {stack!r} parameter {parameter!r}: {message}")
