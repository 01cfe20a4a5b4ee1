"""`{from_stack, output}` wiring: resolved from the outputs handed in, waited for, or INVALID when missing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from reconciler.templates.errors import Problem
from reconciler.templates.repository_config import StackOutputRef, StackSpec
from reconciler.templates.stack_wiring import (
    AwaitingOutputs,
    MissingOutputs,
    ParameterResolution,
    ResolvedParameters,
    resolve_parameters,
    wired_stacks,
)


def app(**parameters: Any) -> StackSpec:
    return StackSpec(
        name="app",
        template="stacks/app/template.yaml",
        environment=(),
        parameters=parameters,
        cloud="sim",
        auto_apply=True,
        self_heal=True,
        prune=True,
        observe_interval=60.0,
    )


NET = StackOutputRef("network", "net_id")
SUBNET = StackOutputRef("network", "subnet_id")
KEY = StackOutputRef("keys", "name")
NETWORK_OUTPUTS = {"network": {"net_id": "n-1", "subnet_id": "s-1"}}


def missing(parameter: str, stack: str, output: str) -> Problem:
    message = f"stack 'app' parameter {parameter!r}: stack {stack!r} has no output {output!r}"
    return Problem("reconciler.yaml", 0, 0, message)


CASES: list[tuple[str, StackSpec, Mapping[str, Mapping[str, Any]], ParameterResolution]] = [
    ("no wiring: the values as written", app(size=2), {}, ResolvedParameters({"size": 2})),
    (
        "wired outputs replace their references, plain values stay",
        app(net=NET, subnet=SUBNET, size=2),
        NETWORK_OUTPUTS,
        ResolvedParameters({"net": "n-1", "subnet": "s-1", "size": 2}),
    ),
    (
        "an output whose value is null is still an output",
        app(net=NET),
        {"network": {"net_id": None}},
        ResolvedParameters({"net": None}),
    ),
    (
        "a wired stack without outputs yet is awaited",
        app(net=NET, key=KEY),
        NETWORK_OUTPUTS,
        AwaitingOutputs(frozenset({"keys"})),
    ),
    (
        "every wired stack without outputs is awaited",
        app(net=NET, key=KEY),
        {},
        AwaitingOutputs(frozenset({"network", "keys"})),
    ),
    (
        "an output the stack does not have names the stack and the output",
        app(net=StackOutputRef("network", "router_id")),
        NETWORK_OUTPUTS,
        MissingOutputs((missing("net", "network", "router_id"),)),
    ),
    (
        "a stack with no outputs at all has none of the wired ones",
        app(net=NET),
        {"network": {}},
        MissingOutputs((missing("net", "network", "net_id"),)),
    ),
    (
        "a missing output outweighs waiting, which would not make it appear",
        app(net=StackOutputRef("network", "router_id"), key=KEY),
        NETWORK_OUTPUTS,
        MissingOutputs((missing("net", "network", "router_id"),)),
    ),
]


@pytest.mark.parametrize(
    ("spec", "outputs", "expected"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_resolve_parameters(
    spec: StackSpec, outputs: Mapping[str, Mapping[str, Any]], expected: ParameterResolution
) -> None:
    assert resolve_parameters(spec, outputs) == expected


def test_wired_stacks_are_the_stacks_named_by_from_stack_once_each() -> None:
    assert wired_stacks(app(net=NET, subnet=SUBNET, key=KEY, size=2)) == {"network", "keys"}
    assert wired_stacks(app(size=2)) == frozenset()
