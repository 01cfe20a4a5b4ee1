"""Template values name things by name or by id (`flavor: m1.small`, `network: private`); the cloud
API wants ids. A UUID-shaped value is taken as an id without a call, as Heat's client plugins do;
a name costs one filtered list call, shared by the lookups of that name made while it is out (a
thousand floating IPs on the network `public` created together are not a thousand lists). Flavors
and images rarely change, so their tables are read once (a name not in the table reads it again
once).
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body

STATIC_COLLECTIONS = frozenset({"flavors", "images"})


def looks_like_id(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


@dataclass
class _Lookup:
    """One list call by name, and the lookups waiting for its answer."""

    done: threading.Event = field(default_factory=threading.Event)
    found: list[Body] = field(default_factory=list)
    error: BaseException | None = None


class NameResolver:
    """Ids for names, per collection; raises BadRequest (a permanent error) naming what is missing."""

    def __init__(self, cloud: SimulatedCloud) -> None:
        self._cloud = cloud
        self._static: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._lookups: dict[tuple[str, str], _Lookup] = {}

    def id_of(self, collection: str, name_or_id: str, what: str) -> str:
        if collection in STATIC_COLLECTIONS:
            return self._static_id(collection, name_or_id, what)
        if looks_like_id(name_or_id):
            return name_or_id
        found = self._named(collection, name_or_id)
        if not found:
            raise BadRequest(f"The {what} ({name_or_id}) could not be found.")
        if len(found) > 1:
            raise BadRequest(
                f"Multiple {what} matches found for name '{name_or_id}', use an ID to be more specific."
            )
        return str(found[0]["id"])

    def _named(self, collection: str, name: str) -> list[Body]:
        """The items called `name`, from a list call made now or the one already out."""
        key = (collection, name)
        with self._lock:
            lookup = self._lookups.get(key)
            lead = lookup is None
            if lookup is None:
                lookup = self._lookups[key] = _Lookup()
        if lead:
            try:
                lookup.found = self._cloud.list(collection, name=name)
            except BaseException as error:
                lookup.error = error
            finally:
                with self._lock:
                    del self._lookups[key]
                lookup.done.set()
        else:
            lookup.done.wait()
        if lookup.error is not None:
            raise lookup.error
        return lookup.found

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
