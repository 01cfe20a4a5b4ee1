"""A commit read as desired state: its `reconciler.yaml`, and each touched stack's definition.

Reading is split in two because of `from_stack` wiring: a commit's configuration (and the order of
its stacks) is known at once, but a stack that takes another's outputs can only be loaded once
those outputs exist. `load_revision` therefore answers with one of three named outcomes: the
loaded definition, the stacks whose outputs it is still waiting for, or the problems that make it
INVALID (file, line, message).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.source.commit_files import CommitFileSource
from reconciler.source.note_lines import Problem as NoteProblem
from reconciler.templates import (
    DocumentCache,
    RepositoryConfig,
    StackDefinition,
    StackSpec,
    TemplateError,
    load_repository_config,
    load_stack,
    stack_order,
)
from reconciler.templates.errors import Problem
from reconciler.templates.stack_wiring import (
    AwaitingOutputs,
    MissingOutputs,
    resolve_parameters,
    wired_stacks,
)

# A stack's converged outputs, or None when the stack has none yet (never converged).
OutputsReader = Callable[[str], Mapping[str, Any] | None]


@dataclass(frozen=True)
class CommitConfig:
    """A commit whose `reconciler.yaml` is valid: its stacks, and the waves their wiring sets."""

    commit: str
    config: RepositoryConfig
    waves: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class InvalidCommit:
    """The commit's `reconciler.yaml` (or its stack wiring) is wrong: nothing of it can be applied."""

    commit: str
    problems: tuple[NoteProblem, ...]


@dataclass(frozen=True)
class StackRevision:
    """A stack's desired state at a commit, loaded and validated."""

    name: str
    commit: str
    spec: StackSpec
    definition: StackDefinition


@dataclass(frozen=True)
class WaitingForOutputs:
    """The stack reads outputs of stacks that have none yet; load it again once they converge."""

    name: str
    commit: str
    upstream: frozenset[str]


@dataclass(frozen=True)
class InvalidStack:
    """The stack's template, environments or files are wrong at this commit."""

    name: str
    commit: str
    problems: tuple[NoteProblem, ...]


RevisionOutcome = StackRevision | WaitingForOutputs | InvalidStack


def note_problems(problems: Iterable[Problem]) -> tuple[NoteProblem, ...]:
    """Template problems as a note carries them: file, line (None when unknown), message."""
    return tuple(NoteProblem(file=p.file, line=p.line or None, message=p.message) for p in problems)


def read_commit_config(files: CommitFileSource) -> CommitConfig | InvalidCommit:
    """The commit's validated `reconciler.yaml` and its stack waves, or why it is INVALID."""
    try:
        config = load_repository_config(files)
        waves = tuple(tuple(wave) for wave in stack_order(config))
    except TemplateError as error:
        return InvalidCommit(commit=files.sha, problems=note_problems(error.problems))
    return CommitConfig(commit=files.sha, config=config, waves=waves)


def _upstream_outputs(spec: StackSpec, outputs_of: OutputsReader) -> dict[str, Mapping[str, Any]]:
    """The outputs of each stack `spec` is wired to that has them."""
    read = {stack: outputs_of(stack) for stack in wired_stacks(spec)}
    return {stack: outputs for stack, outputs in read.items() if outputs is not None}


def load_revision(
    files: CommitFileSource,
    spec: StackSpec,
    outputs_of: OutputsReader,
    documents: DocumentCache | None = None,
) -> RevisionOutcome:
    """Load `spec`'s stack at the commit of `files`, its `from_stack` parameters read from outputs;
    `documents` keeps parsed templates by blob id, so a file no later commit touches is not parsed
    again."""
    resolution = resolve_parameters(spec, _upstream_outputs(spec, outputs_of))
    if isinstance(resolution, MissingOutputs):
        return InvalidStack(name=spec.name, commit=files.sha, problems=note_problems(resolution.problems))
    if isinstance(resolution, AwaitingOutputs):
        return WaitingForOutputs(name=spec.name, commit=files.sha, upstream=resolution.stacks)
    try:
        definition = load_stack(files, spec, parameters=resolution.values, documents=documents)
    except TemplateError as error:
        return InvalidStack(name=spec.name, commit=files.sha, problems=note_problems(error.problems))
    return StackRevision(name=spec.name, commit=files.sha, spec=spec, definition=definition)
