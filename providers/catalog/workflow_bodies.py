"""How Heat's Mistral properties become what Mistral's API takes, and how a workflow or cron
trigger Mistral shows reads back: one answer for every backend that serves the Mistral types.

A workflow's definition is Heat's: `version: '2.0'` and one workflow under its name with the type,
description, output, task defaults and the tasks keyed by name, each task's keys written Mistral's
way (`on_success` as `on-success`); the input as Mistral's list of names, each with the template's
value as its default (so the input read back from Mistral is the template's); the template's tags
and the marker in `tags`. The name is the physical id, as in Heat. A cron trigger takes the
workflow's `name` and `input` (a workflow's `data` attribute) as `workflow_name` and
`workflow_input`, `first_time` as the first execution time and `count` as the remaining executions.
An external resource is the Mistral execution its CREATE action's workflow started.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import yaml

from providers.interface import LiveResource, LiveStatus, Marker
from providers.marker_text import bounded_name

WORKFLOW_TYPE = "OS::Mistral::Workflow"
CRON_TRIGGER_TYPE = "OS::Mistral::CronTrigger"
TASK_OWN_KEYS = frozenset({"name"})  # task properties that are not written into the task itself


def default_name(marker: Marker) -> str:
    """Heat's name for an unnamed workflow or trigger, without the "/" a URL path cannot hold."""
    return bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id[:12]}").replace("/", "-")


def workflow_name(properties: Mapping[str, Any], marker: Marker) -> str:
    return str(properties.get("name") or default_name(marker))


def task_entry(task: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key.replace("_", "-"): value
        for key, value in task.items()
        if key not in TASK_OWN_KEYS and value is not None
    }


def definition(name: str, properties: Mapping[str, Any], marker_tag: str | None) -> str:
    """The YAML definition Mistral is sent for these properties."""
    spec: dict[str, Any] = {"type": properties.get("type") or "direct"}
    for key in ("description", "output"):
        if properties.get(key) is not None:
            spec[key] = properties[key]
    if properties.get("input") is not None:
        spec["input"] = [key if value is None else {key: value} for key, value in properties["input"].items()]
    tags = [str(tag) for tag in properties.get("tags") or ()]
    if marker_tag is not None:
        tags.append(marker_tag)
    if tags:
        spec["tags"] = tags
    if properties.get("task_defaults"):
        spec["task-defaults"] = task_entry(properties["task_defaults"])
    spec["tasks"] = {str(task["name"]): task_entry(task) for task in properties.get("tasks") or ()}
    return str(yaml.safe_dump({"version": "2.0", name: spec}, sort_keys=False))


def read_definition(text: Any, name: str) -> dict[str, Any]:
    """The named workflow of a stored definition (empty when it cannot be read)."""
    try:
        document = yaml.safe_load(text) if isinstance(text, str) else None
    except yaml.YAMLError:
        return {}
    spec = document.get(name) if isinstance(document, dict) else None
    return dict(spec) if isinstance(spec, dict) else {}


def input_of(spec: Mapping[str, Any]) -> dict[str, Any] | None:
    """The input map a definition's input list stands for (None: the workflow takes no input)."""
    entries = spec.get("input")
    if entries is None:
        return None
    found: dict[str, Any] = {}
    for entry in entries:
        found.update(entry if isinstance(entry, dict) else {str(entry): None})
    return found


def marker_tag_of(workflow: Mapping[str, Any]) -> str | None:
    return next((tag for tag in workflow.get("tags") or () if str(tag).startswith(Marker.PREFIX)), None)


def execution_summary(execution: Mapping[str, Any]) -> dict[str, Any]:
    """One entry of a workflow's `executions` attribute, in Heat's keys."""
    summary = {
        key: execution.get(key) for key in ("id", "workflow_name", "created_at", "updated_at", "state")
    }
    summary.update(input=decoded(execution.get("input")), output=decoded(execution.get("output")))
    return summary


def executions_by_workflow(executions: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for execution in executions:
        found.setdefault(str(execution.get("workflow_name")), []).append(execution_summary(execution))
    return found


def workflow_live(
    workflow: Mapping[str, Any], marker: Marker | None, executions: Sequence[Mapping[str, Any]] = ()
) -> LiveResource:
    """A workflow as Mistral shows it: the tasks, type and description of its stored definition are
    what drift is judged on. `executions` are those Mistral holds for the workflow (read at
    observation: started by cron triggers, Zaqar messages or external resources); `alarm_url` is
    null, since signals to a workflow are not served."""
    name = str(workflow["name"])
    spec = read_definition(workflow.get("definition"), name)
    reported: dict[str, Any] = {key: spec[key] for key in ("type", "description") if key in spec}
    reported.update(name=name, tasks=spec.get("tasks"))
    attributes: dict[str, Any] = {"data": {"name": name, "input": input_of(spec)}}
    attributes.update(executions=list(executions), alarm_url=None)
    return LiveResource(name, WORKFLOW_TYPE, LiveStatus.READY, reported, attributes, marker)


def cron_trigger_body(properties: Mapping[str, Any], marker: Marker) -> dict[str, Any]:
    workflow = properties.get("workflow") or {}
    body: dict[str, Any] = {
        "name": properties.get("name") or default_name(marker),
        "workflow_name": workflow.get("name"),
    }
    if workflow.get("input"):
        body["workflow_input"] = workflow["input"]
    for heat_key, mistral_key in (
        ("pattern", "pattern"),
        ("first_time", "first_execution_time"),
        ("count", "remaining_executions"),
    ):
        if properties.get(heat_key) is not None:
            body[mistral_key] = properties[heat_key]
    return body


def cron_trigger_live(trigger: Mapping[str, Any], marker: Marker | None) -> LiveResource:
    name = str(trigger["name"])
    reported = {
        "name": name,
        "pattern": trigger.get("pattern"),
        "workflow": {"name": trigger.get("workflow_name"), "input": trigger.get("workflow_input") or {}},
    }
    attributes = {
        "next_execution_time": trigger.get("next_execution_time"),
        "remaining_executions": trigger.get("remaining_executions"),
    }
    return LiveResource(name, CRON_TRIGGER_TYPE, LiveStatus.READY, reported, attributes, marker)


EXTERNAL_RESOURCE_TYPE = "OS::Mistral::ExternalResource"
EXECUTION_STATES = {
    "IDLE": LiveStatus.IN_PROGRESS,
    "RUNNING": LiveStatus.IN_PROGRESS,
    "PAUSED": LiveStatus.IN_PROGRESS,
    "SUCCESS": LiveStatus.READY,
}
MARKER_PARAM = "reconciler_marker"


def execution_body(
    properties: Mapping[str, Any], action: str, marker_tag: str | None
) -> dict[str, Any] | None:
    """The execution an ExternalResource starts for `action` (CREATE, UPDATE, ...), as Heat starts
    it: the action's workflow with the resource's input and the action's params; None when the
    template gives no workflow for that action. The marker rides in the params."""
    entry = (properties.get("actions") or {}).get(action)
    if not entry or not entry.get("workflow"):
        return None
    params = {**(entry.get("params") or {})}
    if marker_tag is not None:
        params[MARKER_PARAM] = marker_tag
    return {
        "workflow_name": entry["workflow"],
        "input": json.dumps(properties.get("input") or {}),
        "params": json.dumps(params),
        "description": properties.get("description") or "",
    }


def decoded(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return {}
    return dict(value) if isinstance(value, Mapping) else {}


def marker_param_of(execution: Mapping[str, Any]) -> str | None:
    found = decoded(execution.get("params")).get(MARKER_PARAM)
    return str(found) if found is not None else None


def carries_marker(execution: Mapping[str, Any], marker_tag: str) -> bool:
    return marker_param_of(execution) == marker_tag


def external_live(execution: Mapping[str, Any], marker: Marker | None) -> LiveResource:
    """An ExternalResource is the execution it started: in progress while it runs, READY with its
    output once it succeeded, failed for good (a rerun would not mend the workflow) otherwise."""
    state = str(execution.get("state"))
    status = EXECUTION_STATES.get(state, LiveStatus.FAILED)
    reason = (
        ""
        if state in EXECUTION_STATES
        else f"the Mistral execution is {state}: {execution.get('state_info')}"
    )
    return LiveResource(
        str(execution["id"]),
        EXTERNAL_RESOURCE_TYPE,
        status,
        {"description": execution.get("description") or None},
        {"output": decoded(execution.get("output"))},
        marker,
        status_reason=reason,
        failure_is_final=status is LiveStatus.FAILED,
    )
