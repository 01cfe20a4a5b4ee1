"""OS::Mistral::CronTrigger: a Mistral cron trigger that runs a workflow on a pattern.

Heat's properties map onto Mistral's fields: the workflow's `name` and `input` (a workflow's `data`
attribute) become `workflow_name` and `workflow_input`, `first_time` the first execution time,
`count` the remaining executions. Every property replaces the trigger (Mistral cannot change one).
Cron triggers carry no tags or metadata: an unnamed trigger is given Heat's default name, which is
what `find_by_marker` looks for; a named one cannot be found again after a crash. The name is the
physical id. Observation is the paged trigger list.

Mistral deletes a trigger whose remaining executions run out; the simulated cloud runs no
executions, and a trigger gone from a real cloud is made again like any missing resource.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound
from providers.openstack.json_api import JsonApi
from providers.openstack.mistral_workflow import default_name

TYPE_NAME = "OS::Mistral::CronTrigger"


@dataclass(frozen=True)
class CronTriggerHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
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
        return self.live(self.api.post("/cron_triggers", body), marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return self.live(self.api.get(f"/cron_triggers/{physical_id}"), None)  # nothing changes in place

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/cron_triggers/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {
            trigger["name"]: self.live(trigger, None)
            for trigger in self.api.list_all("/cron_triggers", "cron_triggers")
            if trigger["name"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        try:
            return self.live(self.api.get(f"/cron_triggers/{default_name(marker)}"), marker)
        except NotFound:
            return None

    @staticmethod
    def live(trigger: Mapping[str, Any], marker: Marker | None) -> LiveResource:
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
        return LiveResource(name, TYPE_NAME, LiveStatus.READY, reported, attributes, marker)
