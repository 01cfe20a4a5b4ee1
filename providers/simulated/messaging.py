"""Zaqar's queues (messaging v2): named, not numbered, each with a metadata map.

A queue's id is its name (at most 64 of letters, digits, "_" and "-"); a PUT on a queue that exists
changes nothing and says so, as Zaqar's does. Metadata keys starting with "_" are Zaqar's own
settings (`_default_message_ttl`, `_max_messages_post_size`), kept as given. Messages are not
modelled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

QUEUE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


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


BEHAVIOURS = (Queues(),)
