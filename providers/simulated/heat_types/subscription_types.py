"""OS::Zaqar::Subscription and OS::Zaqar::MistralTrigger on the simulated cloud, as the OpenStack
provider speaks them over HTTP (`providers.catalog.subscription_bodies`): the physical id is
`<queue>/<subscription id>`, the marker an entry of the options, a MistralTrigger's subscriber the
simulated Mistral's executions URL."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.catalog.subscription_bodies import (
    MARKER_KEY,
    MISTRAL_TRIGGER_TYPE,
    SUBSCRIPTION_TYPE,
    split_id,
    subscription_body,
    subscription_live,
)
from providers.interface import LiveResource, Marker, NotFound
from providers.marker_text import METADATA_VALUE
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body

WORKFLOW_ENDPOINT = "http://simulated.invalid/workflow/v2"


class Subscription:
    type_name: ClassVar[str] = SUBSCRIPTION_TYPE

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        created = cloud.create("subscriptions", self._request(properties, METADATA_VALUE.fitted(marker.tag)))
        return self._live(created, marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = self._get(cloud, physical_id)
        tag = current["options"].get(MARKER_KEY)
        if str(properties["queue_name"]) != current["source"]:
            created = cloud.create("subscriptions", self._request(properties, tag))
            cloud.delete("subscriptions", current["id"])
            return self._live(created, None)
        fields = subscription_body(self.type_name, properties, tag, WORKFLOW_ENDPOINT)
        return self._live(cloud.update("subscriptions", current["id"], fields), None)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("subscriptions", self._get(cloud, physical_id)["id"])

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = {split_id(physical_id) for physical_id in physical_ids}
        ids = [subscription for _, subscription in wanted]
        return {
            live.physical_id: live
            for body in cloud.list("subscriptions", ids=ids)
            if (body["source"], body["id"]) in wanted
            for live in [self._live(body, None)]
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        tag = METADATA_VALUE.fitted(marker.tag)
        found = [body for body in cloud.list("subscriptions") if body["options"].get(MARKER_KEY) == tag]
        return self._live(found[0], marker) if found else None

    def _request(self, properties: Mapping[str, Any], tag: str | None) -> dict[str, Any]:
        body = subscription_body(self.type_name, properties, tag, WORKFLOW_ENDPOINT)
        return {**body, "queue_name": properties["queue_name"]}

    @staticmethod
    def _get(cloud: SimulatedCloud, physical_id: str) -> Body:
        queue, subscription = split_id(physical_id)
        body = cloud.get("subscriptions", subscription)
        if body["source"] != queue:
            raise NotFound(f"subscription {subscription} is not on queue {queue}")
        return body

    def _live(self, body: Body, marker: Marker | None) -> LiveResource:
        return subscription_live(self.type_name, body["source"], body, marker)


class MistralTrigger(Subscription):
    type_name: ClassVar[str] = MISTRAL_TRIGGER_TYPE


TYPES = (Subscription, MistralTrigger)
