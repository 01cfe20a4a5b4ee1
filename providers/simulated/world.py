"""The state of one simulated cloud: its collections, its schedule of status changes, its ids.

`CloudWorld` is plain data and bookkeeping with no locking, latency or faults (the
`SimulatedCloud` around it adds those). Time enters only as the `now` each call sets, so a status
change due at some moment (BUILD -> ACTIVE, a fated ERROR or disappearance) happens on the first
call at or after it; nothing runs in the background.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from providers.simulated.errors import ItemNotFound, OverQuota
from providers.simulated.faults import Fate, FaultPlan
from providers.simulated.inventory import Body, Inventory
from providers.simulated.settings import CloudSettings

# The variant (RFC 4122) and version (4) bits of a random UUID, as `uuid.UUID` sets them.
_UUID4_CLEAR = ~((0xC000 << 48) | (0xF000 << 64))
_UUID4_SET = (0x8000 << 48) | (4 << 76)


@dataclass(frozen=True)
class Building:
    """The statuses a resource that builds goes through."""

    building: str  # e.g. "BUILD", "creating"
    ready: str  # e.g. "ACTIVE", "available"
    error: str  # e.g. "ERROR", "error"
    status_key: str = "status"  # the body field holding the status (Octavia: provisioning_status)
    # Other statuses a due READY change settles too (Octavia's PENDING_UPDATE after a change).
    settling: tuple[str, ...] = ()
    # Fields set with the ready status (Octavia's operating_status going ONLINE).
    on_ready: Mapping[str, Any] = field(default_factory=dict)
    # The ready status a settling status ends in, where it is not `ready` (Magnum's UPDATE_COMPLETE).
    ready_after: Mapping[str, str] = field(default_factory=dict)

    def is_pending(self, body: Mapping[str, Any]) -> bool:
        status = body.get(self.status_key)
        return status == self.building or status in self.settling


class Behaviour(Protocol):
    """What one collection does on create, update and delete; one per API collection."""

    collection: str
    quota_status: int  # the HTTP status this service answers a quota excess with
    building: Building | None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body: ...

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body: ...

    def delete(self, world: CloudWorld, body: Body) -> None:
        """Undo what the item holds elsewhere (ports of a server, attachments); not the item itself."""
        ...


READY, ERROR, VANISH = "ready", "error", "vanish"


class CloudWorld:
    """Every collection of one cloud, the pending status changes, and a seeded id source."""

    def __init__(
        self,
        behaviours: Iterable[Behaviour],
        settings: CloudSettings,
        faults: FaultPlan,
        random_source: random.Random,
    ) -> None:
        self.behaviours = {behaviour.collection: behaviour for behaviour in behaviours}
        self.inventories = {name: Inventory(name) for name in self.behaviours}
        self.settings = settings
        self.faults = faults
        self.random = random_source
        self.now = 0.0
        self.schedule: list[tuple[float, int, str, str, str]] = []
        self._ticket = 0
        self._stamp_second = -1
        self._stamp = ""

    # ids and times
    def new_id(self) -> str:
        """A version-4 UUID from the cloud's random source: `uuid.UUID(int=..., version=4)`'s text,
        formatted directly, since a UUID object per resource is a noticeable share of a create."""
        text = "%032x" % ((self.random.getrandbits(128) & _UUID4_CLEAR) | _UUID4_SET)
        return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"

    def timestamp(self) -> str:
        second = int(self.now)
        if second != self._stamp_second:
            self._stamp_second = second
            self._stamp = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return self._stamp

    # reading
    def inventory(self, collection: str) -> Inventory:
        inventory = self.inventories.get(collection)
        if inventory is None:
            raise ItemNotFound(f"no collection {collection!r} in this cloud")
        return inventory

    def require(self, collection: str, item_id: str, what: str | None = None) -> Body:
        body = self.inventory(collection).get(item_id)
        if body is None:
            raise ItemNotFound(f"{what or collection.rstrip('s')} {item_id} could not be found.")
        return body

    # writing
    def add(self, collection: str, body: Body) -> Body:
        self.inventories[collection].put(body)
        return body

    def check_quota(self, collection: str, count: int = 1) -> None:
        limit = self.settings.quotas.get(collection)
        if limit is not None and len(self.inventories[collection]) + count > limit:
            status = self.behaviours[collection].quota_status
            raise OverQuota(
                f"Quota exceeded for {collection}: limit {limit}, in use "
                f"{len(self.inventories[collection])}, requested {count}.",
                status,
            )

    def start_building(self, collection: str, body: Body) -> Body:
        """Set a new resource building, with its fate drawn and its status changes scheduled."""
        building = self.behaviours[collection].building
        if building is None:
            return body
        fate = self.faults.draw_fate()
        delay = self.settings.time_to_active
        key = building.status_key
        if fate is Fate.STUCK_IN_BUILD:
            return {**body, key: building.building}
        if fate is not Fate.NORMAL:
            later = ERROR if fate is Fate.ERROR_LATER else VANISH
            self.plan(self.now + delay + self.faults.faults.fate_delay, collection, body["id"], later)
        if delay <= 0:
            return {**body, key: building.ready, **building.on_ready}
        self.plan(self.now + delay, collection, body["id"], READY)
        return body if body.get(key) == building.building else {**body, key: building.building}

    def plan(self, at: float, collection: str, item_id: str, change: str) -> None:
        self._ticket += 1
        heapq.heappush(self.schedule, (at, self._ticket, collection, item_id, change))

    def settle(self, now: float) -> None:
        """Apply every status change due by `now`."""
        self.now = now
        schedule = self.schedule
        while schedule and schedule[0][0] <= now:
            _, _, collection, item_id, change = heapq.heappop(schedule)
            self._apply(collection, item_id, change)

    def remove(self, collection: str, item_id: str) -> Body:
        body = self.require(collection, item_id)
        self.behaviours[collection].delete(self, body)
        self.inventories[collection].pop(item_id)
        return body

    def _apply(self, collection: str, item_id: str, change: str) -> None:
        body = self.inventories[collection].get(item_id)
        building = self.behaviours[collection].building
        if body is None or building is None:
            return
        if change == VANISH:
            self.remove(collection, item_id)
        elif change == ERROR:
            self.inventories[collection].put({**body, building.status_key: building.error})
        elif building.is_pending(body):
            status = building.ready_after.get(str(body.get(building.status_key)), building.ready)
            ready = {building.status_key: status, **building.on_ready, "updated": self.timestamp()}
            self.inventories[collection].put({**body, **ready})
