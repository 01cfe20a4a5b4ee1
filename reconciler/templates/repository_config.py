"""`reconciler.yaml`: which stacks a repository holds and how each is kept converged.

Validated against `schemas/reconciler.schema.json`, with the defaults merged into every stack. A
parameter value `{from_stack: X, output: Y}` wires one stack's output into another's parameter;
`stack_order` turns that wiring into waves of stacks that can converge together.
"""

from __future__ import annotations

import dataclasses
import graphlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import jsonschema

from reconciler.templates.documents import Document, load_document
from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.file_source import FileSource
from reconciler.templates.limits import Limits
from schemas import load_schema

DEFAULT_BRANCH = "main"
DEFAULT_NOTES_REF = "refs/notes/reconciler"
DEFAULT_POLICIES: Mapping[str, Any] = MappingProxyType(
    {"auto_apply": True, "self_heal": True, "prune": True, "observe_interval": 60, "require_approval": ()}
)
# Keys a stack may set for itself or take from `defaults`; `cloud` has no default: a stack that
# silently went to the simulated cloud would converge nothing real and say CONVERGED.
STACK_SETTINGS = ("cloud", *DEFAULT_POLICIES)


@dataclass(frozen=True)
class StackOutputRef:
    """A parameter value taken from another stack's output."""

    stack: str
    output: str


@dataclass(frozen=True)
class StackSpec:
    """One stack of the repository, with the defaults merged in."""

    name: str
    template: str
    environment: tuple[str, ...]
    parameters: Mapping[str, Any]
    cloud: str
    auto_apply: bool
    self_heal: bool
    prune: bool
    observe_interval: float
    require_approval: frozenset[str] = frozenset()  # actions that wait for `reconciler approve`
    state: str = "active"  # `suspended`: every server of the stack suspended (Heat's stack suspend)
    adopt_from: str | None = None  # a file of the repository: Heat abandon data or {resource: physical id}
    limits: Limits = field(default_factory=Limits)  # `limits:` of reconciler.yaml, for every stack


@dataclass(frozen=True)
class VerifyConfig:
    """`verify:`: files of the repository naming who may sign (SSH allowed signers, OpenPGP keys)."""

    allowed_signers: str | None = None
    gpg_keyring: str | None = None


@dataclass(frozen=True)
class RepositoryConfig:
    """The whole `reconciler.yaml`."""

    branch: str
    notes_ref: str
    stacks: Mapping[str, StackSpec]
    verify: VerifyConfig | None = None  # None: commits are applied whoever signed them
    limits: Limits = field(default_factory=Limits)  # `limits:`, also in every StackSpec


def load_repository_config(files: FileSource, path: str = "reconciler.yaml") -> RepositoryConfig:
    """Read and validate `reconciler.yaml`; `TemplateError` naming the file, line and problem."""
    document = load_document(path, files.read(path), Limits())
    _validate(document)
    data = document.data
    defaults = {**DEFAULT_POLICIES, **(data.get("defaults") or {})}
    limits = _limits(data.get("limits") or {})
    stacks = {name: _stack(name, raw, defaults, limits) for name, raw in data["stacks"].items()}
    config = RepositoryConfig(
        branch=data.get("branch", DEFAULT_BRANCH),
        notes_ref=data.get("notes_ref", DEFAULT_NOTES_REF),
        stacks=MappingProxyType(stacks),
        verify=VerifyConfig(**data["verify"]) if data.get("verify") else None,
        limits=limits,
    )
    _check_verify_files(document, config, files)
    _check_wiring(document, config)
    _check_clouds(document, config)
    return config


def load_repository_limits(files: FileSource, path: str = "reconciler.yaml") -> Limits:
    """The `limits:` of `reconciler.yaml` (Heat's defaults where it sets none), the file checked
    against its schema; for commands reading one template of the repository."""
    document = load_document(path, files.read(path), Limits())
    _validate(document)
    return _limits(document.data.get("limits") or {})


def _validate(document: Document) -> None:
    validator = jsonschema.Draft202012Validator(load_schema("reconciler"))
    errors = sorted(validator.iter_errors(document.data), key=lambda error: list(error.absolute_path))
    if errors:
        raise TemplateError(
            [document.problem(_error_path(error), _schema_message(error)) for error in errors]
        )


def _error_path(error: jsonschema.ValidationError) -> list[Any]:
    """Where a schema error is: for keys that are not allowed, the first such key."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        allowed = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
        extra = [key for key in error.instance if key not in allowed]
        path.extend(extra[:1])
    return path


def _schema_message(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(part) for part in error.absolute_path) or "the top level"
    allowed = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
    if error.validator in ("additionalProperties", "minProperties") and allowed:
        return f"{where}: {error.message} (expected: {', '.join(sorted(allowed))})"
    return f"{where}: {error.message}"


def _check_verify_files(document: Document, config: RepositoryConfig, files: FileSource) -> None:
    """Every file `verify:` names must be in the commit: a typo would otherwise trust no one."""
    if config.verify is None:
        return
    problems = []
    for key in ("allowed_signers", "gpg_keyring"):
        path = getattr(config.verify, key)
        if path is None:
            continue
        try:
            files.read(path)
        except TemplateError:
            problems.append(
                document.problem(
                    ["verify", key],
                    f"verify.{key}: expected a file of the repository, but {path!r} is not in this commit",
                )
            )
    if problems:
        raise TemplateError(problems)


def _check_clouds(document: Document, config: RepositoryConfig) -> None:
    problems = [
        document.problem(
            ["stacks", name],
            f"stack {name}: no cloud: set `cloud:` under `defaults` or the stack "
            "(`sim` is the built-in simulated cloud, any other name a clouds.yaml entry)",
        )
        for name, spec in config.stacks.items()
        if not spec.cloud
    ]
    if problems:
        raise TemplateError(problems)


def _limits(raw: Mapping[str, int]) -> Limits:
    default = Limits()
    size = raw.get("max_template_size", default.max_template_bytes)
    return dataclasses.replace(
        default,
        max_template_bytes=size,
        # the densest YAML written without aliases has a node per two bytes: more is an expansion
        max_yaml_nodes=max(default.max_yaml_nodes, size // 2),
        max_nested_stack_depth=raw.get("max_nested_stack_depth", default.max_nested_stack_depth),
    )


def _stack(name: str, raw: Mapping[str, Any], defaults: Mapping[str, Any], limits: Limits) -> StackSpec:
    environment = raw.get("environment") or []
    if isinstance(environment, str):
        environment = [environment]
    parameters = {
        key: StackOutputRef(value["from_stack"], value["output"])
        if isinstance(value, Mapping) and "from_stack" in value
        else value
        for key, value in (raw.get("parameters") or {}).items()
    }
    merged = {**defaults, **{key: raw[key] for key in STACK_SETTINGS if key in raw}}
    return StackSpec(
        name=name,
        template=raw["template"],
        environment=tuple(environment),
        parameters=MappingProxyType(parameters),
        cloud=str(merged.get("cloud") or ""),
        auto_apply=bool(merged["auto_apply"]),
        self_heal=bool(merged["self_heal"]),
        prune=bool(merged["prune"]),
        observe_interval=float(merged["observe_interval"]),
        require_approval=frozenset(merged["require_approval"]),
        state=str(raw.get("state", "active")),
        adopt_from=raw.get("adopt_from"),
        limits=limits,
    )


def _check_wiring(document: Document, config: RepositoryConfig) -> None:
    problems = [
        document.problem(
            ["stacks", spec.name, "parameters", key],
            f"stack {spec.name}: parameter {key} takes an output of unknown stack {value.stack!r}",
        )
        for spec in config.stacks.values()
        for key, value in spec.parameters.items()
        if isinstance(value, StackOutputRef) and value.stack not in config.stacks
    ]
    if problems:
        raise TemplateError(problems)
    try:
        stack_order(config)
    except TemplateError as error:
        raise TemplateError([document.problem(["stacks"], p.message) for p in error.problems]) from None


def stack_dependencies(config: RepositoryConfig) -> dict[str, frozenset[str]]:
    """Stack -> the stacks whose outputs it takes."""
    return {
        spec.name: frozenset(
            value.stack for value in spec.parameters.values() if isinstance(value, StackOutputRef)
        )
        for spec in config.stacks.values()
    }


def stack_order(config: RepositoryConfig) -> list[list[str]]:
    """Waves of stacks: each wave needs only outputs of earlier waves (sorted within a wave)."""
    dependencies = stack_dependencies(config)
    for name, needed in dependencies.items():
        unknown = sorted(needed - set(config.stacks))
        if unknown:
            raise TemplateError(
                [
                    Problem(
                        "reconciler.yaml", 0, 0, f"stack {name} takes outputs of unknown stack(s) {unknown}"
                    )
                ]
            )
    sorter = graphlib.TopologicalSorter(dependencies)
    try:
        sorter.prepare()
    except graphlib.CycleError as error:
        cycle = " -> ".join(error.args[1])
        raise TemplateError(
            [Problem("reconciler.yaml", 0, 0, f"stacks take each other's outputs in a cycle: {cycle}")]
        ) from None
    waves: list[list[str]] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready())
        waves.append(ready)
        sorter.done(*ready)
    return waves
