"""`reconciler validate`: validate a Heat template and its environments, as Heat's validation does.

A parameter with neither a value nor a default is not an error here (`plan` and `apply` require
it); a value or default breaking its constraints is. Outputs are resolved as far as possible
without a cloud. Files are read inside one repository tree: by default the nearest folder above
the template holding `reconciler.yaml` or `.git`, else the current folder; `--root` sets it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from reconciler.daemon.collector import collector_paused, tune_process
from reconciler.templates import (
    DirectorySource,
    FunctionError,
    Problem,
    StackDefinition,
    TemplateError,
    load_repository_limits,
    load_stack,
)

HIDDEN = "******"


def repository_root(template: Path) -> Path:
    """The tree a template's files are read from, when not given."""
    for folder in template.resolve().parents:
        if (folder / "reconciler.yaml").is_file() or (folder / ".git").exists():
            return folder
    cwd = Path.cwd().resolve()
    return cwd if template.resolve().is_relative_to(cwd) else template.resolve().parent


def _inside(root: Path, path: str) -> str:
    resolved = Path(path).resolve()
    if not resolved.is_relative_to(root):
        raise click.BadParameter(f"{path} is outside the repository tree {root}")
    return Path(os.path.relpath(resolved, root)).as_posix()


def _parameters(pairs: Sequence[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        name, separator, value = pair.partition("=")
        if not separator or not name:
            raise click.BadParameter(f"{pair!r} is not name=value", param_hint="-P")
        values[name] = value
    return values


def _hide_secrets(value: Any, definition: StackDefinition) -> Any:
    secrets = [
        str(definition.parameters[name])
        for name in definition.hidden_parameters
        if definition.parameters.get(name) not in (None, "")
    ]
    text = json.dumps(value, default=str)
    return HIDDEN if any(secret in text for secret in secrets) else value


def _outputs(definition: StackDefinition) -> dict[str, Any]:
    outputs: dict[str, Any] = {}
    for name in definition.outputs:
        try:
            outputs[name] = _hide_secrets(definition.output_without_cloud(name), definition)
        except FunctionError as error:
            outputs[name] = {"error": definition.without_secrets(str(error))}
    return outputs


def validation_report(
    root: Path, template: str, environments: Sequence[str], parameters: dict[str, str]
) -> tuple[dict[str, Any], list[Problem]]:
    """The JSON report of validating `template` (repository paths) and the warnings found, within
    the `limits:` of the tree's `reconciler.yaml` when it has one."""
    files = DirectorySource(root)
    try:
        limits = load_repository_limits(files) if (root / "reconciler.yaml").is_file() else None
        definition = load_stack(files, template, environments, parameters, limits=limits)
    except TemplateError as error:
        errors = [{"file": p.file, "line": p.line, "message": p.message} for p in error.problems]
        return {"valid": False, "errors": errors, "resources": 0, "nested_stacks": 0, "outputs": {}}, []
    report = {
        "valid": True,
        "errors": [],
        "resources": len(definition.resources),
        "nested_stacks": sum(1 for r in definition.resources.values() if r.nested_kind is not None),
        "outputs": _outputs(definition),
    }
    return report, list(definition.warnings)


@click.command(name="validate")
@click.argument("template", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "-e",
    "--environment",
    "environments",
    multiple=True,
    help="An environment file (repeatable, merged in order).",
)
@click.option(
    "-P", "--parameter", "parameters", multiple=True, help="A parameter value, name=value (repeatable)."
)
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--root", type=click.Path(exists=True, file_okay=False), help="The repository tree files are read from."
)
def command(
    template: str,
    environments: tuple[str, ...],
    parameters: tuple[str, ...],
    output_format: str,
    root: str | None,
) -> None:
    """Validate a Heat template and its environments (exit 0 when valid, 1 with errors)."""
    tree = Path(root).resolve() if root else repository_root(Path(template))
    tune_process()
    with collector_paused():  # a large template's objects all stay alive: collections only walk them
        report, warnings = validation_report(
            tree,
            _inside(tree, template),
            [_inside(tree, path) for path in environments],
            _parameters(parameters),
        )
    if output_format == "json":
        click.echo(json.dumps(report, indent=2, sort_keys=True, default=str))
    else:
        for warning in warnings:
            click.echo(f"warning: {warning}", err=True)
        for error in report["errors"]:
            location = f"{error['file']}:{error['line']}" if error["line"] else error["file"]
            click.echo(f"{location}: {error['message']}", err=True)
        if report["valid"]:
            counts = f"{report['resources']} resources, {report['nested_stacks']} nested stacks"
            click.echo(f"{template}: valid ({counts})")
    raise SystemExit(0 if report["valid"] else 1)
