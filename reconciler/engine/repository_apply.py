"""Converge every stack of one commit of a repository, wave by wave in `from_stack` order.

What `reconciler apply` runs, and what the scenario tests drive: a stack's `{from_stack, output}`
parameters are filled from the outputs its wave's predecessors stored, then it is submitted to the
engine; a template that does not load makes the stack INVALID (nothing applied).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from reconciler.engine.desired import DesiredGeneration
from reconciler.engine.engine import Engine
from reconciler.engine.report import Failure, StackReport
from reconciler.engine.stack_status import StackStatus
from reconciler.templates import (
    FileSource,
    RepositoryConfig,
    StackOutputRef,
    StackSpec,
    TemplateError,
    load_repository_config,
    load_stack,
    stack_order,
)
from reconciler.templates.hidden_values import hidden_values


def resolved_parameters(spec: StackSpec, outputs_of: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The stack's parameters with every `{from_stack, output}` replaced by that stack's output."""
    resolved: dict[str, Any] = {}
    for name, value in spec.parameters.items():
        if isinstance(value, StackOutputRef):
            resolved[name] = outputs_of.get(value.stack, {}).get(value.output)
        else:
            resolved[name] = value
    return resolved


HideValues = Callable[[str, Iterable[str]], None]  # `Store.hide`: a stack's hidden values, sealed at rest


def submit_stack(
    engine: Engine,
    config: RepositoryConfig,
    files: FileSource,
    name: str,
    commit: str,
    *,
    hide: HideValues | None = None,
) -> bool:
    """Load and submit one stack; False (and the stack INVALID) when its template does not load."""
    spec = config.stacks[name]
    outputs = {other: engine.outputs(other) for other in config.stacks if other != name}
    try:
        definition = load_stack(files, spec, parameters=resolved_parameters(spec, outputs))
    except TemplateError as error:
        engine.invalid(name, commit, [str(problem) for problem in error.problems])
        return False
    if hide is not None:
        hide(name, hidden_values(definition.parameters, definition.hidden_parameters))
    engine.submit(name, DesiredGeneration(commit, spec, definition))
    return True


def unconverged_sources(spec: StackSpec, reports: Mapping[str, StackReport]) -> list[Failure]:
    """The stacks this one takes outputs from that did not converge: it waits for them."""
    sources = {value.stack for value in spec.parameters.values() if isinstance(value, StackOutputRef)}
    return [
        Failure(f"from_stack {source}", f"waits for stack {source}, which is {reports[source].status.value}")
        for source in sorted(sources)
        if source in reports and reports[source].status is not StackStatus.CONVERGED
    ]


def apply_repository(
    engine: Engine, files: FileSource, commit: str, deadline: float, *, hide: HideValues | None = None
) -> dict[str, StackReport]:
    """Converge every stack of the repository at `commit`; each stack's report, in wave order.

    `hide` is told each stack's hidden parameter values before it is submitted."""
    config = load_repository_config(files)
    reports: dict[str, StackReport] = {}
    for wave in stack_order(config):
        submitted: list[str] = []
        for name in wave:
            waiting = unconverged_sources(config.stacks[name], reports)
            if waiting:
                reports[name] = StackReport(name, StackStatus.PENDING, commit, None, failures=tuple(waiting))
            elif submit_stack(engine, config, files, name, commit, hide=hide):
                submitted.append(name)
            else:
                reports[name] = engine.report(name)
        reports.update(engine.converge(submitted, deadline))
    return reports
