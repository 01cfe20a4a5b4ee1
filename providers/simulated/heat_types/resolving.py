"""Template values name things by name or by id (`flavor: m1.small`, `network: private`); the cloud
API wants ids. A UUID-shaped value is taken as an id without a call, as Heat's client plugins do;
a name costs one filtered list call. Flavors and images rarely change, so their tables are read once
(a name not in the table reads it again once).
"""

from __future__ import annotations

import threading
import uuid

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest

STATIC_COLLECTIONS = frozenset({"flavors", "images"})


def looks_like_id(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


class NameResolver:
    """Ids for names, per collection; raises BadRequest (a permanent error) naming what is missing."""

    def __init__(self, cloud: SimulatedCloud) -> None:
        self._cloud = cloud
        self._static: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()

    def id_of(self, collection: str, name_or_id: str, what: str) -> str:
        if collection in STATIC_COLLECTIONS:
            return self._static_id(collection, name_or_id, what)
        if looks_like_id(name_or_id):
            return name_or_id
        found = self._cloud.list(collection, name=name_or_id)
        if not found:
            raise BadRequest(f"The {what} ({name_or_id}) could not be found.")
        if len(found) > 1:
            raise BadRequest(
                f"Multiple {what} matches found for name '{name_or_id}', use an ID to be more specific."
            )
        return str(found[0]["id"])

    def _static_id(self, collection: str, name_or_id: str, what: str) -> str:
        table = self._static.get(collection)  # read once, then only read: no lock after that
        if table is None:
            table = self._static_table(collection)
        found = table.get(name_or_id)
        if found is None:
            # images and flavors can be made (OS::Glance::WebImage, OS::Nova::Flavor): an unknown
            # name reads the table again once
            with self._lock:
                self._static.pop(collection, None)
            found = self._static_table(collection).get(name_or_id)
        if found is None:
            raise BadRequest(f"The {what} ({name_or_id}) could not be found.")
        return found

    def _static_table(self, collection: str) -> dict[str, str]:
        with self._lock:
            table = self._static.get(collection)
            if table is None:
                table = {}
                for body in self._cloud.list(collection):
                    table[body["id"]] = body["id"]
                    table.setdefault(body["name"], body["id"])
                self._static[collection] = table
        return table
