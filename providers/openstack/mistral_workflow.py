"""OS::Mistral::Workflow: a Mistral workflow made from the YAML definition Heat writes.

The definition is Heat's: `version: '2.0'` and one workflow under its name (the template's, or
Heat's default name for an unnamed one) with the type, description, output, the input's names,
the task defaults and the tasks keyed by name, the input as Mistral's list of names with their
template values as defaults (so the input read back from Mistral is the template's), each task's keys written Mistral's way (`on_success`
as `on-success`). The marker rides in the workflow's tags. The name is the physical id, as in Heat,
so a rename (a PUT by the workflow's uuid) gives the resource a new physical id. A create that
meets a workflow of the same name adopts it when it carries the marker; otherwise the conflict is
permanent. Observation is the paged workflow list; the tasks, type and description read back from
the stored definition are what drift is judged on.

Attributes: `data` (name and input, what a cron trigger's `workflow` takes), `executions` (none:
executions are started by signals, which are not served), `alarm_url` (none, for the same reason).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent, Retryable
from providers.marker_text import METADATA_VALUE
from providers.openstack.json_api import JsonApi
from providers.openstack.marker_tags import physical_name

TYPE_NAME = "OS::Mistral::Workflow"
# Heat's task properties that are not written into the task as `key-with-hyphens`.
TASK_OWN_KEYS = frozenset({"name"})


def task_entry(task: Mapping[str, Any]) -> dict[str, Any]:
    return {key.replace("_", "-"): value for key, value in task.items() if key not in TASK_OWN_KEYS and value is not None}


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


def default_name(marker: Marker) -> str:
    """Heat's name for an unnamed workflow or trigger, without the "/" a URL path cannot hold."""
    return physical_name(marker).replace("/", "-")


def workflow_name(properties: Mapping[str, Any], marker: Marker) -> str:
    return str(properties.get("name") or default_name(marker))


@dataclass(frozen=True)
class WorkflowHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        name = workflow_name(properties, marker)
        tag = METADATA_VALUE.fitted(marker.tag)
        try:
            created = self.api.send_text("POST", "/workflows", definition(name, properties, tag))
        except Retryable as error:
            if not error.conflict:
                raise
            existing = self._get(name)
            if tag not in (existing.get("tags") or ()):
                raise Permanent(f"a workflow named {name!r} already exists and is not this resource's") from error
            return self.live(existing, marker)
        return self.live(created["workflows"][0], marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = self._get(physical_id)
        marker_tag = next((tag for tag in current.get("tags") or () if tag.startswith(Marker.PREFIX)), None)
        name = str(properties.get("name") or physical_id)
        text = definition(name, properties, marker_tag)
        updated = self.api.send_text("PUT", "/workflows", text, params={"identifier": current["id"]})
        return self.live(updated["workflows"][0], None)

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/workflows/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {
            workflow["name"]: self.live(workflow, None)
            for workflow in self.api.list_all("/workflows", "workflows")
            if workflow["name"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        try:
            found = self._get(default_name(marker))
        except NotFound:
            return None
        return self.live(found, marker) if METADATA_VALUE.fitted(marker.tag) in (found.get("tags") or ()) else None

    def _get(self, identifier: str) -> dict[str, Any]:
        found: dict[str, Any] = self.api.get(f"/workflows/{identifier}")
        return found

    def live(self, workflow: Mapping[str, Any], marker: Marker | None) -> LiveResource:
        name = str(workflow["name"])
        spec = read_definition(workflow.get("definition"), name)
        reported = {key: spec[key] for key in ("type", "description") if key in spec}
        reported["name"] = name
        reported["tasks"] = spec.get("tasks")
        attributes = {"data": {"name": name, "input": input_of(spec)}, "executions": [], "alarm_url": None}
        return LiveResource(name, TYPE_NAME, LiveStatus.READY, reported, attributes, marker)


def input_of(spec: Mapping[str, Any]) -> dict[str, Any] | None:
    """The input map a definition's input list stands for (None: the workflow takes no input)."""
    entries = spec.get("input")
    if entries is None:
        return None
    found: dict[str, Any] = {}
    for entry in entries:
        found.update(entry if isinstance(entry, dict) else {str(entry): None})
    return found


def read_definition(text: Any, name: str) -> dict[str, Any]:
    """The named workflow of a stored definition (empty when it cannot be read)."""
    try:
        document = yaml.safe_load(text) if isinstance(text, str) else None
    except yaml.YAMLError:
        return {}
    spec = document.get(name) if isinstance(document, dict) else None
    return dict(spec) if isinstance(spec, dict) else {}
