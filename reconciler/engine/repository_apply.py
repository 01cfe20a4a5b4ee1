"""Converge every stack of one commit of a repository, wave by wave in `from_stack` order.

What `reconciler apply` runs, and what the scenario tests drive: a stack's `{from_stack, output}`
parameters are filled from the outputs its wave's predecessors stored, then it is submitted to the
engine; a template that does not load makes the stack INVALID (nothing applied).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping

from reconciler.engine.desired import DesiredGeneration
from reconciler.engine.engine import Engine
from reconciler.engine.report import Failure, StackReport
from reconciler.engine.stack_status import AT_REST, StackStatus
from reconciler.templates import (
    BlockKeeper,
    FileSource,
    RepositoryConfig,
    StackDefinition,
    StackSpec,
    TemplateError,
    load_repository_config,
    load_stack,
    stack_order,
)
from reconciler.templates.adopt_data import Adoption, load_adoption
from reconciler.templates.hidden_values import hidden_values
from reconciler.templates.stack_wiring import (
    MissingOutputs,
    ResolvedParameters,
    resolve_parameters,
    wired_stacks,
)

# An upstream stack whose outputs a wired stack may take: at rest, or abandoned (its last outputs stand).
OUTPUTS_FINAL = AT_REST | {StackStatus.ABANDONED}
HideValues = Callable[[str, Iterable[str]], None]  # `Store.hide`: a stack's hidden values, sealed at rest


def submit_stack(
    engine: Engine,
    config: RepositoryConfig,
    files: FileSource,
    name: str,
    commit: str,
    *,
    hide: HideValues | None = None,
    adoption: Adoption | None = None,
    blocks: BlockKeeper | None = None,
) -> StackDefinition | None:
    """Load and submit one stack: its definition; None (and the stack INVALID) when its wiring or
    template is wrong.

    `adoption` (else the file its `adopt_from` names) is taken instead of creating what it names."""
    spec = config.stacks[name]
    # the wave order converged every wired stack before this one, so none is awaited: its outputs are final
    resolution = resolve_parameters(spec, {stack: engine.outputs(stack) for stack in wired_stacks(spec)})
    if isinstance(resolution, MissingOutputs):
        engine.invalid(name, commit, [str(problem) for problem in resolution.problems])
        return None
    assert isinstance(resolution, ResolvedParameters)
    try:
        definition = load_stack(files, spec, parameters=resolution.values, blocks=blocks)
        if adoption is None and spec.adopt_from is not None:
            adoption = load_adoption(files, spec.adopt_from, spec.limits)
    except TemplateError as error:
        engine.invalid(name, commit, [str(problem) for problem in error.problems])
        return None
    if hide is not None:
        hide(name, hidden_values(definition.parameters, definition.hidden_parameters))
    engine.submit(name, DesiredGeneration(commit, spec, definition, adoption))
    return definition


def unconverged_sources(spec: StackSpec, reports: Mapping[str, StackReport]) -> list[Failure]:
    """The stacks this one takes outputs from that did not converge: it waits for them."""
    return [
        Failure(f"from_stack {source}", f"waits for stack {source}, which is {reports[source].status.value}")
        for source in sorted(wired_stacks(spec))
        if source in reports and reports[source].status not in OUTPUTS_FINAL
    ]


def apply_repository(
    engine: Engine,
    files: FileSource,
    commit: str,
    deadline: float,
    *,
    hide: HideValues | None = None,
    on_pass: Callable[[list[str]], None] | None = None,
    blocks: BlockKeeper | None = None,
    on_converged: Callable[[str, StackDefinition], None] | None = None,
) -> dict[str, StackReport]:
    """Converge every stack of the repository at `commit`; each stack's report, in wave order.

    `hide` is told each stack's hidden parameter values before it is submitted; `on_pass` is
    called after each engine pass with the stacks converging (a progress display); `blocks` keeps
    the templates' resources parsed, so what a plan or an earlier apply parsed is not parsed again;
    `on_converged` is told each stack that converged, with its definition."""
    config = load_repository_config(files)
    reports: dict[str, StackReport] = {}
    for wave in stack_order(config):
        submitted: dict[str, StackDefinition] = {}
        for name in wave:
            waiting = unconverged_sources(config.stacks[name], reports)
            if waiting:
                reports[name] = StackReport(name, StackStatus.PENDING, commit, None, failures=tuple(waiting))
                continue
            definition = submit_stack(engine, config, files, name, commit, hide=hide, blocks=blocks)
            if definition is not None:
                submitted[name] = definition
            else:
                reports[name] = engine.report(name)
        progress = functools.partial(on_pass, list(submitted)) if on_pass is not None else None
        converged = engine.converge(list(submitted), deadline, progress)
        reports.update(converged)
        for name, report in converged.items():
            if on_converged is not None and report.status is StackStatus.CONVERGED:
                on_converged(name, submitted[name])
    return reports
