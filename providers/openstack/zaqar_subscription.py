"""OS::Zaqar::Subscription and OS::Zaqar::MistralTrigger: subscriptions on a Zaqar queue.

A MistralTrigger is a subscription whose subscriber is Mistral's executions URL behind a Keystone
trust (`trust+<workflow endpoint>/executions`) and whose options carry, as Heat writes them, the
`post_data` Zaqar sends for each message: the workflow, its input, and its params with the message
itself as `env.notification`. The marker rides in the options (`reconciler_marker`). The physical
id is `<queue>/<subscription id>`, since every Zaqar call names the queue. The subscriber, ttl and
options change in one PATCH; a new queue is a new subscription (made before the old one goes).
Observation lists each queue's subscriptions, paged; `find_by_marker` reads every queue's.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent
from providers.marker_text import METADATA_VALUE
from providers.openstack.json_api import JsonApi
from providers.openstack.zaqar_queue import PAGE, QueueHandler

SUBSCRIPTION_TYPE = "OS::Zaqar::Subscription"
MISTRAL_TRIGGER_TYPE = "OS::Zaqar::MistralTrigger"
MARKER_KEY = "reconciler_marker"


def split_id(physical_id: str) -> tuple[str, str]:
    queue, _, subscription = physical_id.partition("/")
    if not subscription:
        raise NotFound(f"{physical_id!r} is not a subscription id (<queue>/<id>)")
    return queue, subscription


@dataclass(frozen=True)
class SubscriptionHandler:
    queues: QueueHandler  # for its Client-ID and calls
    type_name: str
    workflow: JsonApi | None = None  # Mistral, whose executions URL a MistralTrigger subscribes

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        queue = str(properties["queue_name"])
        body = self._body(properties, METADATA_VALUE.fitted(marker.tag))
        created = self.queues.call("POST", f"/queues/{queue}/subscriptions", body=body)
        return self._read(f"{queue}/{created['subscription_id']}", marker)

    def update(self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]) -> LiveResource:
        queue, subscription = split_id(physical_id)
        current = self.queues.call("GET", f"/queues/{queue}/subscriptions/{subscription}") or {}
        tag = (current.get("options") or {}).get(MARKER_KEY)
        if str(properties["queue_name"]) != queue:
            created = self.queues.call(
                "POST", f"/queues/{properties['queue_name']}/subscriptions", body=self._body(properties, tag)
            )
            self.delete(physical_id)
            return self._read(f"{properties['queue_name']}/{created['subscription_id']}", None)
        self.queues.call("PATCH", f"/queues/{queue}/subscriptions/{subscription}", body=self._body(properties, tag))
        return self._read(physical_id, None)

    def delete(self, physical_id: str) -> None:
        queue, subscription = split_id(physical_id)
        self.queues.call("GET", f"/queues/{queue}/subscriptions/{subscription}")  # Zaqar deletes quietly
        self.queues.call("DELETE", f"/queues/{queue}/subscriptions/{subscription}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        by_queue: dict[str, set[str]] = {}
        for physical_id in physical_ids:
            queue, subscription = split_id(physical_id)
            by_queue.setdefault(queue, set()).add(subscription)
        found: dict[str, LiveResource] = {}
        for queue, wanted in by_queue.items():
            try:
                for subscription in self._subscriptions(queue):
                    if subscription["id"] in wanted:
                        found[f"{queue}/{subscription['id']}"] = self.live(queue, subscription, None)
            except NotFound:
                continue  # the queue is gone, and its subscriptions with it
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        tag = METADATA_VALUE.fitted(marker.tag)
        for queue in self._queue_names():
            for subscription in self._subscriptions(queue):
                if (subscription.get("options") or {}).get(MARKER_KEY) == tag:
                    return self.live(queue, subscription, marker)
        return None

    def _body(self, properties: Mapping[str, Any], tag: str | None) -> dict[str, Any]:
        if self.type_name == MISTRAL_TRIGGER_TYPE:
            subscriber, options = self._mistral_subscriber(), self._post_data(properties)
        else:
            subscriber, options = properties["subscriber"], dict(properties.get("options") or {})
        if tag is not None:
            options[MARKER_KEY] = tag
        return {"subscriber": subscriber, "ttl": properties.get("ttl"), "options": options}

    def _mistral_subscriber(self) -> str:
        if self.workflow is None:
            raise Permanent("the cloud has no workflow service (needed by OS::Zaqar::MistralTrigger)")
        return f"trust+{self.workflow.proxy.get_endpoint().rstrip('/')}/executions"

    @staticmethod
    def _post_data(properties: Mapping[str, Any]) -> dict[str, Any]:
        params = dict(properties.get("params") or {})
        params["env"] = {**(params.get("env") or {}), "notification": "$zaqar_message$"}
        post_data = {"workflow_id": properties["workflow_id"], "params": params, "input": properties.get("input") or {}}
        return {"post_data": json.dumps(post_data, sort_keys=True)}

    def _read(self, physical_id: str, marker: Marker | None) -> LiveResource:
        queue, subscription = split_id(physical_id)
        return self.live(queue, self.queues.call("GET", f"/queues/{queue}/subscriptions/{subscription}"), marker)

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

    def live(self, queue: str, subscription: Mapping[str, Any], marker: Marker | None) -> LiveResource:
        options = {key: value for key, value in (subscription.get("options") or {}).items() if key != MARKER_KEY}
        reported: dict[str, Any] = {"queue_name": queue, "ttl": subscription.get("ttl")}
        if self.type_name == SUBSCRIPTION_TYPE:
            reported.update(subscriber=subscription.get("subscriber"), options=options)
        else:
            post_data = json.loads(options.get("post_data") or "{}")
            reported.update(workflow_id=post_data.get("workflow_id"), input=post_data.get("input"))
        physical_id = f"{queue}/{subscription['id']}"
        return LiveResource(physical_id, self.type_name, LiveStatus.READY, reported, {}, marker)
