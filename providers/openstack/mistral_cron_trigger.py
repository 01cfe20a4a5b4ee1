"""OS::Mistral::CronTrigger: a Mistral cron trigger that runs a workflow on a pattern (its body
is `providers.catalog.workflow_bodies.cron_trigger_body`).

Every property replaces the trigger (Mistral cannot change one). Cron triggers carry no tags or
metadata: an unnamed trigger is given Heat's default name, which is what `find_by_marker` looks
for; a named one cannot be found again after a crash. The name is the physical id. Observation is
the paged trigger list. Mistral deletes a trigger whose remaining executions run out; such a
trigger is missing, and made again like any missing resource.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.workflow_bodies import cron_trigger_body, cron_trigger_live, default_name
from providers.interface import LiveResource, Marker, NotFound
from providers.openstack.json_api import JsonApi


@dataclass(frozen=True)
class CronTriggerHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return cron_trigger_live(
            self.api.post("/cron_triggers", cron_trigger_body(properties, marker)), marker
        )

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return cron_trigger_live(self.api.get(f"/cron_triggers/{physical_id}"), None)  # all replace

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/cron_triggers/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {
            trigger["name"]: cron_trigger_live(trigger, None)
            for trigger in self.api.list_all("/cron_triggers", "cron_triggers")
            if trigger["name"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        try:
            return cron_trigger_live(self.api.get(f"/cron_triggers/{default_name(marker)}"), marker)
        except NotFound:
            return None
