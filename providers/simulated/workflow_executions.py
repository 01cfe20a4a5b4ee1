"""Mistral's workflow executions: started for an existing workflow with a JSON input, RUNNING until
the cloud's time to active passes, then SUCCESS. No task's action runs; a successful execution's
output is what Mistral would give if every task succeeded without results of its own: the
workflow's `output` section, or else its input beside the values its tasks publish, each kept only
where it is a literal (an expression, `<% ... %>`, is not evaluated and is left out).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body
from providers.simulated.workflows import find_workflow, input_defaults, read_workflow
from providers.simulated.world import Building, CloudWorld


def literal(value: Any) -> bool:
    return not (isinstance(value, str) and "<%" in value)


def json_field(value: Any, field: str) -> dict[str, Any]:
    """Mistral's JSON-typed fields arrive as JSON text or as objects."""
    if value is None or value == "":
        return {}
    try:
        decoded = json.loads(value) if isinstance(value, str) else value
    except ValueError as error:
        raise BadRequest(f"Invalid JSON in {field}: {error}") from error
    if not isinstance(decoded, Mapping):
        raise BadRequest(f"{field} must be a JSON object.")
    return dict(decoded)


def successful_output(spec: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    output = spec.get("output")
    if isinstance(output, Mapping):
        return {key: value for key, value in output.items() if literal(value)}
    published: dict[str, Any] = {}
    for task in (spec.get("tasks") or {}).values():
        if isinstance(task, Mapping) and isinstance(task.get("publish"), Mapping):
            published.update({key: value for key, value in task["publish"].items() if literal(value)})
    return {**given, **published}


class Executions:
    collection = "executions"
    quota_status = 403
    building: Building | None = Building("RUNNING", "SUCCESS", "ERROR", status_key="state")

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        identifier = request.get("workflow_id") or request.get("workflow_name")
        if not identifier:
            raise BadRequest("Workflow ID or workflow name must be provided.")
        workflow = find_workflow(world, str(identifier))
        spec = read_workflow(workflow)
        given = {**input_defaults(spec), **json_field(request.get("input"), "input")}
        stamp = world.timestamp()
        return {
            "id": world.new_id(),
            "workflow_id": workflow["id"],
            "workflow_name": workflow["name"],
            "description": request.get("description") or "",
            "input": json.dumps(given),
            "params": json.dumps(json_field(request.get("params"), "params")),
            "output": json.dumps(successful_output(spec, given)),
            "state": "RUNNING",
            "state_info": None,
            "created_at": stamp,
            "updated_at": stamp,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        raise BadRequest("Executions are not changed here.")

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


def shown(body: Body) -> Body:
    """An execution as Mistral shows it: the output only once it succeeded."""
    return body if body["state"] == "SUCCESS" else {**body, "output": "{}"}


BEHAVIOURS = (Executions(),)
