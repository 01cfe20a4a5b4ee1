"""OS::Mistral::Workflow, OS::Mistral::CronTrigger and OS::Mistral::ExternalResource on the
simulated cloud, as the OpenStack provider speaks them over HTTP (`providers.catalog.workflow_bodies`):
a workflow's or trigger's name is its physical id, a workflow's marker one of its tags, an unnamed
trigger found by its default name, an external resource the execution it started."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.catalog.workflow_bodies import (
    carries_marker,
    cron_trigger_body,
    cron_trigger_live,
    default_name,
    definition,
    execution_body,
    executions_by_workflow,
    external_live,
    marker_param_of,
    marker_tag_of,
    workflow_live,
    workflow_name,
)
from providers.interface import LiveResource, Marker, NotFound, Permanent
from providers.marker_text import METADATA_VALUE
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body
from providers.simulated.workflow_executions import shown as execution_shown


def named(cloud: SimulatedCloud, collection: str, name: str) -> Body:
    found = cloud.list(collection, name=name)
    if not found:
        raise NotFound(f"{collection.rstrip('s')} {name} could not be found")
    return found[0]


class Workflow:
    type_name: ClassVar[str] = "OS::Mistral::Workflow"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        name = workflow_name(properties, marker)
        tag = METADATA_VALUE.fitted(marker.tag)
        try:
            created = cloud.create("workflows", {"definition": definition(name, properties, tag)})
        except Conflict as error:
            existing = named(cloud, "workflows", name)
            if tag not in existing["tags"]:
                raise Permanent(
                    f"a workflow named {name!r} already exists and is not this resource's"
                ) from error
            return workflow_live(existing, marker)
        return workflow_live(created, marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = named(cloud, "workflows", physical_id)
        text = definition(str(properties.get("name") or physical_id), properties, marker_tag_of(current))
        return workflow_live(cloud.update("workflows", current["id"], {"definition": text}), None)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("workflows", named(cloud, "workflows", physical_id)["id"])

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        found = [body for body in cloud.list("workflows") if body["name"] in wanted]
        shown = [execution_shown(body) for body in cloud.list("executions")] if found else []
        executions = executions_by_workflow(shown)
        return {body["name"]: workflow_live(body, None, executions.get(body["name"], ())) for body in found}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = cloud.list("workflows", name=default_name(marker))
        if found and METADATA_VALUE.fitted(marker.tag) in found[0]["tags"]:
            return workflow_live(found[0], marker)
        return None


class CronTrigger:
    type_name: ClassVar[str] = "OS::Mistral::CronTrigger"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return cron_trigger_live(cloud.create("cron_triggers", cron_trigger_body(properties, marker)), marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return cron_trigger_live(named(cloud, "cron_triggers", physical_id), None)  # every property replaces

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("cron_triggers", named(cloud, "cron_triggers", physical_id)["id"])

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        return {
            body["name"]: cron_trigger_live(body, None)
            for body in cloud.list("cron_triggers")
            if body["name"] in wanted
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = cloud.list("cron_triggers", name=default_name(marker))
        return cron_trigger_live(found[0], marker) if found else None


class ExternalResource:
    type_name: ClassVar[str] = "OS::Mistral::ExternalResource"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = execution_body(properties, "CREATE", METADATA_VALUE.fitted(marker.tag))
        if body is None:
            raise Permanent("OS::Mistral::ExternalResource needs a workflow for its CREATE action")
        return external_live(execution_shown(cloud.create("executions", body)), marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = cloud.get("executions", physical_id)
        body = execution_body(properties, "UPDATE", marker_param_of(current))
        if body is None:
            return external_live(execution_shown(current), None)
        return external_live(execution_shown(cloud.create("executions", body)), None)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("executions", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        found = cloud.list("executions", ids=list(physical_ids))
        return {body["id"]: external_live(execution_shown(body), None) for body in found}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        tag = METADATA_VALUE.fitted(marker.tag)
        found = [body for body in cloud.list("executions") if carries_marker(body, tag)]
        return external_live(execution_shown(found[0]), marker) if found else None


TYPES = (Workflow, CronTrigger, ExternalResource)
