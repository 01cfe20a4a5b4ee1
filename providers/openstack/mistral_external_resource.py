"""OS::Mistral::ExternalResource: a resource some Mistral workflow manages, as Heat runs it.

A create starts an execution of the CREATE action's workflow with the resource's input and that
action's params (the marker beside them); the resource is in progress while the execution runs,
ready with its `output` once it succeeded, failed for good on ERROR or CANCELLED. The execution id
is the physical id (Heat's, unless the output names a `resource_id`, which is not followed here).
An update starts the UPDATE action's workflow, when the template gives one, and the resource is
that execution from then on. A delete deletes the execution record; a DELETE action's workflow is
not run, since a delete is told only the physical id. Observation is the paged execution list.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.workflow_bodies import (
    carries_marker,
    execution_body,
    external_live,
    marker_param_of,
)
from providers.interface import LiveResource, Marker, Permanent
from providers.marker_text import METADATA_VALUE
from providers.openstack.json_api import JsonApi


@dataclass(frozen=True)
class ExternalResourceHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = execution_body(properties, "CREATE", METADATA_VALUE.fitted(marker.tag))
        if body is None:
            raise Permanent("OS::Mistral::ExternalResource needs a workflow for its CREATE action")
        return external_live(self.api.post("/executions", body), marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = self.api.get(f"/executions/{physical_id}")
        body = execution_body(properties, "UPDATE", marker_param_of(current))
        if body is None:  # no UPDATE workflow: Heat records the new properties and runs nothing
            return external_live(current, None)
        return external_live(self.api.post("/executions", body), None)

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/executions/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {
            execution["id"]: external_live(execution, None)
            for execution in self.api.list_all("/executions", "executions")
            if execution["id"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        tag = METADATA_VALUE.fitted(marker.tag)
        for execution in self.api.list_all("/executions", "executions"):
            if carries_marker(execution, tag):
                return external_live(execution, marker)
        return None
