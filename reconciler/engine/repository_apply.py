"""Converge every stack of one commit of a repository, wave by wave in `from_stack` order.

What `reconciler apply` runs, and what the scenario tests drive: a stack's `{from_stack, output}`
parameters are filled from the outputs its wave's predecessors stored, then it is submitted to the
engine; a template that does not load makes the stack INVALID (nothing applied).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.engine.desired import DesiredGeneration
from reconciler.engine.engine import Engine
from reconciler.engine.report import StackReport
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


def resolved_parameters(spec: StackSpec, outputs_of: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The stack's parameters with every `{from_stack, output}` replaced by that stack's output."""
    resolved: dict[str, Any] = {}
    for name, value in spec.parameters.items():
        if isinstance(value, StackOutputRef):
            resolved[name] = outputs_of.get(value.stack, {}).get(value.output)
        else:
            resolved[name] = value
    return resolved


def submit_stack(engine: Engine, config: RepositoryConfig, files: FileSource, name: str, commit: str) -> bool:
    """Load and submit one stack; False (and the stack INVALID) when its template does not load."""
    spec = config.stacks[name]
    outputs = {other: engine.outputs(other) for other in config.stacks if other != name}
    try:
        definition = load_stack(files, spec, parameters=resolved_parameters(spec, outputs))
    except TemplateError as error:
        engine.invalid(name, commit, [str(problem) for problem in error.problems])
        return False
    engine.submit(name, DesiredGeneration(commit, spec, definition))
    return True


def apply_repository(
    engine: Engine, files: FileSource, commit: str, deadline: float
) -> dict[str, StackReport]:
    """Converge every stack of the repository at `commit`; each stack's report, in wave order."""
    config = load_repository_config(files)
    reports: dict[str, StackReport] = {}
    for wave in stack_order(config):
        submitted = [name for name in wave if submit_stack(engine, config, files, name, commit)]
        reports.update({name: engine.report(name) for name in wave if name not in submitted})
        reports.update(engine.converge(submitted, deadline))
    return reports
