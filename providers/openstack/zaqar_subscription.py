"""OS::Zaqar::Subscription and OS::Zaqar::MistralTrigger: subscriptions on a Zaqar queue, with
bodies and reading in `providers.catalog.subscription_bodies`, through the queue handler's calls
(and so its Client-ID).

The subscriber, ttl and options change in one PATCH; a new queue is a new subscription (made
before the old one goes). Observation lists each queue's subscriptions, paged; `find_by_marker`
reads every queue's, since the marker does not say which queue.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from providers.catalog.subscription_bodies import (
    MARKER_KEY,
    MISTRAL_TRIGGER_TYPE,
    split_id,
    subscription_body,
    subscription_live,
)
from providers.interface import LiveResource, Marker, NotFound, Permanent
from providers.marker_text import METADATA_VALUE
from providers.openstack.errors import translated_errors
from providers.openstack.json_api import JsonApi
from providers.openstack.zaqar_queue import PAGE, QueueHandler


@dataclass(frozen=True)
class SubscriptionHandler:
    queues: QueueHandler
    type_name: str
    workflow: JsonApi | None = None  # Mistral, whose executions URL a MistralTrigger subscribes

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        queue = str(properties["queue_name"])
        created = self._post(queue, properties, METADATA_VALUE.fitted(marker.tag))
        return self._read(f"{queue}/{created['subscription_id']}", marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        queue, subscription = split_id(physical_id)
        path = f"/queues/{queue}/subscriptions/{subscription}"
        tag = ((self.queues.call("GET", path) or {}).get("options") or {}).get(MARKER_KEY)
        if str(properties["queue_name"]) != queue:
            created = self._post(str(properties["queue_name"]), properties, tag)
            self.delete(physical_id)
            return self._read(f"{properties['queue_name']}/{created['subscription_id']}", None)
        self.queues.call("PATCH", path, body=self._body(properties, tag))
        return self._read(physical_id, None)

    def delete(self, physical_id: str) -> None:
        queue, subscription = split_id(physical_id)
        path = f"/queues/{queue}/subscriptions/{subscription}"
        self.queues.call("GET", path)  # Zaqar deletes a missing subscription quietly: say it is gone
        self.queues.call("DELETE", path)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        by_queue: dict[str, set[str]] = {}
        for physical_id in physical_ids:
            queue, subscription = split_id(physical_id)
            by_queue.setdefault(queue, set()).add(subscription)
        found: dict[str, LiveResource] = {}
        for queue, wanted in by_queue.items():
            try:
                for shown in self._subscriptions(queue):
                    if shown["id"] in wanted:
                        live = subscription_live(self.type_name, queue, shown, None)
                        found[live.physical_id] = live
            except NotFound:
                continue  # the queue is gone, and its subscriptions with it
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        tag = METADATA_VALUE.fitted(marker.tag)
        for queue in self._queue_names():
            for subscription in self._subscriptions(queue):
                if (subscription.get("options") or {}).get(MARKER_KEY) == tag:
                    return subscription_live(self.type_name, queue, subscription, marker)
        return None

    def _post(self, queue: str, properties: Mapping[str, Any], tag: str | None) -> dict[str, Any]:
        created: dict[str, Any] = self.queues.call(
            "POST", f"/queues/{queue}/subscriptions", body=self._body(properties, tag)
        )
        return created

    def _body(self, properties: Mapping[str, Any], tag: str | None) -> dict[str, Any]:
        endpoint = None
        if self.type_name == MISTRAL_TRIGGER_TYPE:
            if self.workflow is None:
                raise Permanent(f"the cloud has no workflow service (needed by {MISTRAL_TRIGGER_TYPE})")
            with translated_errors("finding the workflow service's endpoint"):
                endpoint = str(self.workflow.proxy.get_endpoint())
        return subscription_body(self.type_name, properties, tag, endpoint)

    def _read(self, physical_id: str, marker: Marker | None) -> LiveResource:
        queue, subscription = split_id(physical_id)
        shown = self.queues.call("GET", f"/queues/{queue}/subscriptions/{subscription}")
        return subscription_live(self.type_name, queue, shown, marker)

    def _subscriptions(self, queue: str) -> Iterator[dict[str, Any]]:
        params: dict[str, str | int] = {"limit": PAGE}
        while True:
            page = self.queues.call("GET", f"/queues/{queue}/subscriptions", params=params) or {}
            items = page.get("subscriptions") or []
            yield from items
            if len(items) < PAGE or not any(link.get("rel") == "next" for link in page.get("links") or ()):
                return
            params = {**params, "marker": items[-1]["id"]}

    def _queue_names(self) -> Iterator[str]:
        params: dict[str, str | int] = {"limit": PAGE}
        while True:
            queues = (self.queues.call("GET", "/queues", params=params) or {}).get("queues") or []
            yield from (queue["name"] for queue in queues)
            if len(queues) < PAGE:
                return
            params = {**params, "marker": queues[-1]["name"]}
