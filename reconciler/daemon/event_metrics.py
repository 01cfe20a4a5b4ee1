"""Drift repairs and failures counted by resource type, from the stack events as they happen.

A sink of the stack board: a `drift_repaired` event names the repaired resources (`stack: name`),
a `failed` event carries one reason per failing resource (`name: reason`); each is counted under
its resource type, looked up in the definition the engine runs. Sinks run on the engine's pass,
the one thread that drives the engine, so reading its runs here is safe.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import Counter

from reconciler.daemon.stack_board import DRIFT_REPAIRED, FAILED, StackEvent
from reconciler.engine.engine import Engine
from reconciler.engine.report import parse_failure

UNKNOWN = "unknown"


def resource_type_in(engine: Engine) -> Callable[[str, str], str]:
    """(stack, resource) -> the resource's type in the definition the engine runs, else `unknown`."""

    def type_of(stack: str, resource: str) -> str:
        run = engine.run_of(stack)
        definition = None if run is None else run.definition
        found = None if definition is None else definition.resources.get(resource)
        return UNKNOWN if found is None else found.type

    return type_of


def counting_events(
    drift_repairs: Counter, failures: Counter, type_of: Callable[[str, str], str]
) -> Callable[[StackEvent], None]:
    """The sink that counts `event`'s repairs and failures by type."""

    def count(event: StackEvent) -> None:
        if event.event == DRIFT_REPAIRED:
            named = [label.partition(": ") for label in event.repaired]
            for stack, _separator, resource in named:
                drift_repairs.labels(type=type_of(stack, resource)).inc()
            unnamed = event.counts.get("repaired", 0) - len(named)
            if unnamed > 0:
                drift_repairs.labels(type=UNKNOWN).inc(unnamed)
        elif event.event == FAILED:
            for reason in event.reasons:
                failures.labels(type=type_of(event.stack, parse_failure(reason).resource)).inc()

    return count
