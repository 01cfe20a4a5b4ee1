"""OS::Mistral::Workflow: a Mistral workflow made from the YAML definition Heat writes
(`providers.catalog.workflow_bodies`), sent as text.

The marker rides in the workflow's tags. The name is the physical id, as in Heat, so a rename (a
PUT by the workflow's uuid) gives the resource a new physical id. A create that meets a workflow
of the same name adopts it when it carries the marker; otherwise the conflict is permanent.
Observation is the paged workflow list, and the paged execution list for the `executions`
attribute.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.workflow_bodies import (
    default_name,
    definition,
    executions_by_workflow,
    marker_tag_of,
    workflow_live,
    workflow_name,
)
from providers.interface import LiveResource, Marker, NotFound, Permanent, Retryable
from providers.marker_text import METADATA_VALUE
from providers.openstack.json_api import JsonApi


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
                raise Permanent(
                    f"a workflow named {name!r} already exists and is not this resource's"
                ) from error
            return workflow_live(existing, marker)
        return workflow_live(created["workflows"][0], marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = self._get(physical_id)
        text = definition(str(properties.get("name") or physical_id), properties, marker_tag_of(current))
        updated = self.api.send_text("PUT", "/workflows", text, params={"identifier": current["id"]})
        return workflow_live(updated["workflows"][0], None)

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/workflows/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        found = [
            workflow
            for workflow in self.api.list_all("/workflows", "workflows")
            if workflow["name"] in wanted
        ]
        executions = executions_by_workflow(self.api.list_all("/executions", "executions")) if found else {}
        return {
            workflow["name"]: workflow_live(workflow, None, executions.get(workflow["name"], ()))
            for workflow in found
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        try:
            found = self._get(default_name(marker))
        except NotFound:
            return None
        carries = METADATA_VALUE.fitted(marker.tag) in (found.get("tags") or ())
        return workflow_live(found, marker) if carries else None

    def _get(self, identifier: str) -> dict[str, Any]:
        found: dict[str, Any] = self.api.get(f"/workflows/{identifier}")
        return found
