"""Mistral's workflows and cron triggers (workflow v2).

A workflow is made from a definition in Mistral's YAML language (v2.0); the definition is checked
for the shape Mistral's parser insists on (a `version: '2.0'`, each workflow a map whose `tasks`
is a non-empty map, `type` direct or reverse, a task with at most one of `action` and `workflow`,
`requires` only in reverse workflows), and a definition that fails is refused with a 400 naming
what is wrong, as Mistral's "Invalid DSL" answer does. Names are unique in the project. A cron
trigger names an existing workflow, a five-field cron pattern and/or a first execution time; its
next execution time is computed from the pattern, and the trigger never fires (see
`workflow_executions` for executions started through the API).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import yaml

from providers.simulated.cron import CronPattern
from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

WORKFLOW_TYPES = ("direct", "reverse")
TASK_TRANSITIONS = ("on-success", "on-error", "on-complete")
TIME_FORMAT = "%Y-%m-%d %H:%M"


def parsed_definition(text: Any) -> dict[str, dict[str, Any]]:
    """The workflows of a definition by name, or a 400 saying why Mistral would refuse it."""
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("Invalid DSL: the workflow definition is empty.")
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise BadRequest(f"Definition could not be parsed: {error}") from error
    if not isinstance(document, Mapping):
        raise BadRequest("Invalid DSL: the definition must be a map.")
    if str(document.get("version")) != "2.0":
        raise BadRequest(f"Invalid DSL: unsupported DSL version {document.get('version')!r}; expected '2.0'.")
    workflows = {str(name): spec for name, spec in document.items() if name not in ("version", "name")}
    if not workflows:
        raise BadRequest("Invalid DSL: the definition holds no workflow.")
    for name, spec in workflows.items():
        check_workflow(name, spec)
    return workflows


def check_workflow(name: str, spec: Any) -> None:
    if not isinstance(spec, Mapping):
        raise BadRequest(f"Invalid DSL: workflow {name!r} must be a map.")
    kind = spec.get("type", "direct")
    if kind not in WORKFLOW_TYPES:
        raise BadRequest(f"Invalid DSL: workflow {name!r} has type {kind!r}; expected direct or reverse.")
    tasks = spec.get("tasks")
    if not isinstance(tasks, Mapping) or not tasks:
        raise BadRequest(f"Invalid DSL: workflow {name!r} must have a non-empty map of tasks.")
    for task_name, task in tasks.items():
        check_task(name, kind, str(task_name), task)


def check_task(workflow: str, kind: str, name: str, task: Any) -> None:
    where = f"task {name!r} of workflow {workflow!r}"
    if not isinstance(task, Mapping):
        raise BadRequest(f"Invalid DSL: {where} must be a map.")
    if task.get("action") and task.get("workflow"):
        raise BadRequest(f"Invalid DSL: {where} has both action and workflow; only one is allowed.")
    if "requires" in task and kind == "direct":
        raise BadRequest(f"Invalid DSL: {where} has 'requires', which only reverse workflows allow.")
    for transition in TASK_TRANSITIONS:
        value = task.get(transition)
        if value is not None and not isinstance(value, list | str | Mapping):
            raise BadRequest(f"Invalid DSL: {where} has a malformed {transition}.")


def input_text(spec: Mapping[str, Any]) -> str:
    """Mistral's summary of a workflow's inputs: names (and defaults) joined by ", "."""
    entries: list[str] = []
    for entry in spec.get("input") or ():
        if isinstance(entry, Mapping):
            entries.extend(f"{key}={json.dumps(value)}" for key, value in entry.items())
        else:
            entries.append(str(entry))
    return ", ".join(entries)


class Workflows:
    """One item per workflow; `definition` is the text it was made from (one workflow each)."""

    collection = "workflows"
    quota_status = 403
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name, spec = self._single(request.get("definition"))
        if world.inventory(self.collection).select(name=name):
            raise Conflict(
                f"Duplicate entry for WorkflowDefinition ['name', 'namespace', 'project_id']: {name}, , "
            )
        stamp = world.timestamp()
        return {
            "id": world.new_id(),
            "name": name,
            "namespace": "",
            "definition": request["definition"],
            "input": input_text(spec),
            "tags": [str(tag) for tag in spec.get("tags") or ()],
            "scope": request.get("scope") or "private",
            "project_id": world.settings.project_id,
            "created_at": stamp,
            "updated_at": None,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        name, spec = self._single(request.get("definition"))
        if name != body["name"] and world.inventory(self.collection).select(name=name):
            raise Conflict(f"Duplicate entry for WorkflowDefinition: {name}")
        return {
            **body,
            "name": name,
            "definition": request["definition"],
            "input": input_text(spec),
            "tags": [str(tag) for tag in spec.get("tags") or ()],
            "updated_at": world.timestamp(),
        }

    def delete(self, world: CloudWorld, body: Body) -> None:
        for trigger in world.inventory("cron_triggers").select():
            if trigger["workflow_id"] == body["id"]:
                raise BadRequest(
                    f"Can't delete workflow that has cron triggers associated. [workflow_identifier="
                    f"{body['name']}], [cron_trigger_id(s)={trigger['id']}]"
                )

    @staticmethod
    def _single(definition: Any) -> tuple[str, Mapping[str, Any]]:
        workflows = parsed_definition(definition)
        if len(workflows) != 1:
            raise BadRequest("Invalid DSL: one workflow per definition is served here.")
        return next(iter(workflows.items()))


def read_workflow(workflow: Body) -> Mapping[str, Any]:
    """The workflow's own section of its stored definition."""
    spec = parsed_definition(workflow["definition"]).get(workflow["name"])
    return spec if isinstance(spec, Mapping) else {}


def input_defaults(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The defaults a definition's input list gives (`[a, {b: 1}]` gives b)."""
    found: dict[str, Any] = {}
    for entry in spec.get("input") or ():
        if isinstance(entry, Mapping):
            found.update(entry)
    return found


def find_workflow(world: CloudWorld, identifier: str) -> Body:
    """A workflow by id or by name, as Mistral's API takes either."""
    found = world.inventory("workflows").get(identifier)
    if found is not None:
        return found
    named = world.inventory("workflows").select(name=identifier)
    if not named:
        raise ItemNotFound(f"Workflow not found [workflow_identifier={identifier}, namespace=]")
    return named[0]


def parsed_time(text: Any, field: str) -> datetime:
    try:
        return datetime.strptime(str(text), TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError as error:
        raise BadRequest(
            f"Invalid input for field {field}: {text!r} is not of the form YYYY-MM-DD HH:MM."
        ) from error


class CronTriggers:
    collection = "cron_triggers"
    quota_status = 403
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest("Invalid input: a cron trigger needs a name.")
        if world.inventory(self.collection).select(name=name):
            raise Conflict(f"Duplicate entry for cron trigger {name}.")
        identifier = request.get("workflow_id") or request.get("workflow_name")
        workflow = find_workflow(world, str(identifier))
        pattern, first = request.get("pattern"), request.get("first_execution_time")
        if not pattern and not first:
            raise BadRequest("Pattern or first_execution_time must be specified.")
        now = datetime.fromtimestamp(world.now, UTC)
        next_time = self._first_time(pattern, first, now)
        count = request.get("remaining_executions")
        if count is not None and (not isinstance(count, int) or count < 1):
            raise BadRequest("remaining_executions must be a positive integer.")
        return {
            "id": world.new_id(),
            "name": name,
            "pattern": pattern,
            "workflow_name": workflow["name"],
            "workflow_id": workflow["id"],
            "workflow_input": dict(request.get("workflow_input") or {}),
            "workflow_params": dict(request.get("workflow_params") or {}),
            "first_execution_time": first,
            "next_execution_time": next_time.strftime("%Y-%m-%d %H:%M:%S"),
            "remaining_executions": count,
            "scope": "private",
            "project_id": world.settings.project_id,
            "created_at": world.timestamp(),
            "updated_at": None,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        raise BadRequest("Cron triggers cannot be changed; delete and create one instead.")

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None

    @staticmethod
    def _first_time(pattern: Any, first: Any, now: datetime) -> datetime:
        if first:
            when = parsed_time(first, "first_execution_time")
            if when <= now:
                raise BadRequest("First execution time must be in the future.")
            return when
        try:
            return CronPattern.parse(str(pattern)).next_after(now)
        except ValueError as error:
            raise BadRequest(f"Invalid cron pattern {pattern!r}: {error}") from error


BEHAVIOURS = (Workflows(), CronTriggers())
