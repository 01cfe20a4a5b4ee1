"""Zaqar's queues (messaging v2): named, not numbered, each with a metadata map.

A queue's id is its name (at most 64 of letters, digits, "_" and "-"); a PUT on a queue that exists
changes nothing and says so, as Zaqar's does. Metadata keys starting with "_" are Zaqar's own
settings (`_default_message_ttl`, `_max_messages_post_size`), kept as given. Messages are not
modelled.

A subscription belongs to a queue that exists; its subscriber is a URI Zaqar can notify (http,
https, mailto, or a `trust+` URI Zaqar calls with a Keystone trust, as Mistral triggers are), at
most one subscription per subscriber on a queue, with a positive ttl; nothing is ever delivered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

QUEUE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
SUBSCRIBER = re.compile(r"^(trust\+)?(https?://\S+|mailto:\S+@\S+)$")


class Queues:
    collection = "queues"
    quota_status = 403
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not QUEUE_NAME.match(name):
            raise BadRequest(
                f"Queue names may not be more than 64 characters long and may only contain letters, digits, "
                f"underscores and dashes: {str(name)[:70]!r}"
            )
        metadata = request.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise BadRequest("Queue metadata must be a JSON object.")
        return {"id": name, "name": name, "metadata": dict(metadata), "created": world.timestamp()}

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        metadata = request.get("metadata")
        if not isinstance(metadata, Mapping):
            raise BadRequest("Queue metadata must be a JSON object.")
        return {**body, "metadata": dict(metadata)}

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


class Subscriptions:
    collection = "subscriptions"
    quota_status = 403
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        queue = str(request.get("queue_name"))
        world.require("queues", queue, "Queue")
        subscriber = self._subscriber(request.get("subscriber"))
        if any(
            body["source"] == queue and body["subscriber"] == subscriber
            for body in world.inventory(self.collection)
        ):
            raise Conflict("Subscription already exists.")
        return {
            "id": world.new_id().replace("-", "")[:24],
            "source": queue,
            "subscriber": subscriber,
            "ttl": self._ttl(request.get("ttl", 3600)),
            "options": dict(self._options(request.get("options"))),
            "age": 0,
            "confirmed": not subscriber.startswith("mailto:"),
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        changes: Body = {}
        if "subscriber" in request:
            changes["subscriber"] = self._subscriber(request["subscriber"])
        if "ttl" in request:
            changes["ttl"] = self._ttl(request["ttl"])
        if "options" in request:
            changes["options"] = dict(self._options(request["options"]))
        return {**body, **changes}

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None

    @staticmethod
    def _subscriber(value: Any) -> str:
        if not isinstance(value, str) or not SUBSCRIBER.match(value):
            raise BadRequest(
                "The subscriber type of subscription must be supported in the list "
                f"['http', 'https', 'mailto', 'trust+http', 'trust+https']: {value!r}"
            )
        return value

    @staticmethod
    def _ttl(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise BadRequest("The TTL for a subscription must be a positive integer.")
        return value

    @staticmethod
    def _options(value: Any) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise BadRequest("Options must be a dict.")
        return value


BEHAVIOURS = (Queues(), Subscriptions())
