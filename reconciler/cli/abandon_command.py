"""`reconciler abandon STACK`: stop managing a stack and print its abandon data, as Heat's
`openstack stack abandon` does; nothing in the cloud is deleted.

The data (JSON, Heat's shape) lists every resource with its physical id, nested stacks within;
`adopt_from:` in reconciler.yaml or `reconciler adopt STACK FILE` takes it back. With `--repo`, the
stack's template and environment are the repository's working tree's, hidden parameters masked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
import platformdirs

from reconciler.cli.database_option import database_option
from reconciler.cli.shared_options import optional_repo_option
from reconciler.daemon.state_key import state_sealer
from reconciler.engine.abandon_data import abandon_data
from reconciler.templates import (
    DirectorySource,
    StackOutputRef,
    StackSpec,
    TemplateError,
    load_repository_config,
)
from reconciler.templates.documents import load_document
from state import StackStatus
from state.store import open_store
from timekeeping import SystemClock

ABANDONED_BY_COMMAND = "abandoned by `reconciler abandon`: not managed; its resources are left in the cloud"
MASK = "******"


@click.command(name="abandon")
@click.argument("stack")
@database_option()
@optional_repo_option("Take the stack's template and environment from this repository for the abandon data.")
def command(stack: str, database: str, repo: Path | None) -> None:
    """Stop managing STACK (nothing deleted) and print its abandon data as JSON."""
    if "/" in stack:
        raise click.ClickException(f"{stack!r} is a nested stack: abandon the stack that holds it")
    template, environment = _repository_view(repo, stack) if repo is not None else ({}, {})
    store = open_store(
        database,
        clock=SystemClock(),
        sealer=state_sealer(database, Path(platformdirs.user_state_dir("reconciler"))),
    )
    try:
        state = store.read_stack(stack)
        if state is None:
            raise click.ClickException(f"no stack named {stack!r} in this database")
        if state.status is StackStatus.ABANDONED:
            raise click.ClickException(f"stack {stack!r} is abandoned already")
        data = abandon_data(
            stack, store.read_stack, store.read_records, template=template, environment=environment
        )
        store.abandon(stack, ABANDONED_BY_COMMAND)
    finally:
        store.close()
    click.echo(json.dumps(data, indent=2, sort_keys=True))


def _repository_view(repo: Path, stack: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stack's template as written, and Heat's user environment for it (hidden values masked)."""
    files = DirectorySource(repo)
    try:
        config = load_repository_config(files)
        spec = config.stacks.get(stack)
        if spec is None:
            raise click.ClickException(f"{repo}: reconciler.yaml declares no stack {stack!r}")
        template = load_document(spec.template, files.read(spec.template), spec.limits).data
        environments = [load_document(path, files.read(path), spec.limits).data for path in spec.environment]
    except TemplateError as error:
        raise click.ClickException("\n".join(str(problem) for problem in error.problems)) from None
    template = template if isinstance(template, dict) else {}
    return template, _environment(spec, template, environments)


def _environment(spec: StackSpec, template: Mapping[str, Any], environments: list[Any]) -> dict[str, Any]:
    parameters: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    registry: dict[str, Any] = {}
    for environment in environments:
        if isinstance(environment, Mapping):
            parameters.update(environment.get("parameters") or {})
            defaults.update(environment.get("parameter_defaults") or {})
            registry.update(environment.get("resource_registry") or {})
    parameters.update(
        {name: value for name, value in spec.parameters.items() if not isinstance(value, StackOutputRef)}
    )
    declared = template.get("parameters") or {}
    hidden = {name for name, entry in declared.items() if isinstance(entry, Mapping) and entry.get("hidden")}
    return {
        "parameters": {name: MASK if name in hidden else value for name, value in parameters.items()},
        "parameter_defaults": {name: MASK if name in hidden else value for name, value in defaults.items()},
        "resource_registry": registry,
        "encrypted_param_names": [],
        "event_sinks": [],
    }
