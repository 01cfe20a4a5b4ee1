"""The simulated cloud: one in-process model of Nova, Neutron, Cinder, Glance, Octavia, Aodh,
Keystone's admin collections, Swift, Designate, Barbican, Zaqar, Mistral, Zun, Blazar, Magnum and
Monasca, shared by the in-process `SimulatedProvider` and the OpenStack-compatible HTTP face.

Every API call goes through one pipeline: a slot under the concurrency limit (wait for one, or a
429 with Retry-After), the configured latency (an injected `sleep`), the call fault drawn from the
`FaultPlan`, then the change itself under one lock, after every status change due by the injected
`clock` has been applied. The out-of-band API (`vanish`, `set_status`, `change`, `hold_in_build`)
skips that pipeline: it is the world acting behind the clients' backs, for drift tests.

State persists as one JSON file (`SimulatedCloud.open(path)`, `save()`), so separate processes
see the same cloud one after the other.

Regions: a cloud serves RegionOne and the regions its settings add (`CloudSettings.regions`). Each
region is a `SimulatedCloud` of its own (`in_region(name)`): its own collections, schedule,
concurrency limit and faults, so what one region holds is not seen from another. They share the
settings, the clock and Keystone (served once, by the home region); the home region saves them all.

Limits, on purpose:
- One project and one user; no authentication beyond handing out a token; no roles or policy. The
  Keystone collections (projects, users, roles, grants, ...) are data: tokens ignore them. Every
  region holds a copy of them; the home region's are the ones Keystone serves.
- Alarms are evaluated in the home region only; another region's alarms keep their state.
- Alarms change state only when an `alarm_evaluator.AlarmEvaluator` round runs (on demand, or on
  its own thread while served); their telemetry (`telemetry.Telemetry`) is not saved with the state.
- Quotas count items per collection (and the gigabytes of volumes); no cores or RAM quotas.
  Per-project quotas set through Nova's, Neutron's and Cinder's quota APIs are recorded, not enforced.
- Statuses change only at calls: a server due ACTIVE becomes so on the first call after it is due.
- No scheduler: availability zones, server-group policies and scheduler hints are recorded, never
  enforced; resize, rebuild, stop and start change statuses only.
- Networking is bookkeeping: sequential IPv4/IPv6 addresses per subnet, no DHCP, no reachability
  checks between a floating IP's network and the port's router; no default security group.
- Names, tags and metadata are held to the services' limits (see `field_limits`); nothing else of a
  request's text is.
- No volume types, image uploads (an image's data is imported from a URL it never reads) or server
  metadata items; snapshots are made only through the API; key pairs belong to the one user.
- Mistral's executions run no actions; Zun containers run nothing; Blazar leases reserve no
  capacity (see `workflow_executions`, `application_containers`, `reservations`).
- Volumes, snapshots and backups hold data (an image file each, `volume_data`) only when
  `CloudSettings.volume_data` names a directory, as `open` does beside the cloud's file.
- Swift objects are names and sizes without content; Zaqar queues hold no messages; Barbican makes
  an order's key material from the cloud's random source and knows no certificate authority.
- The saved file is written whole by `save()`; two processes must not hold the same cloud open for
  writing at once (the reconciler's runs are sequential; a served cloud is one process).
"""

from __future__ import annotations

import heapq
import json
import os
import queue
import random
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from providers.simulated import (
    aggregates,
    alarms,
    application_containers,
    backups,
    block_storage,
    compute,
    container_infra,
    dns,
    flavors,
    floating_ips,
    identity,
    images,
    key_manager,
    load_balancing,
    messaging,
    monitoring,
    network,
    object_storage,
    qos,
    qos_specs,
    quota_sets,
    reservations,
    routers,
    security_groups,
    seeds,
    subnet_pools,
    trunks,
    volume_snapshots,
    volume_types,
    workflow_executions,
    workflows,
)
from providers.simulated.errors import (
    BadRequest,
    CallTimedOut,
    CloudError,
    Forbidden,
    InternalError,
    ServiceUnavailable,
    TooManyRequests,
)
from providers.simulated.faults import CallFault, FaultPlan, Faults
from providers.simulated.field_limits import check_fields
from providers.simulated.inventory import Body
from providers.simulated.locking import RunnableLock
from providers.simulated.settings import REGION, CloudSettings
from providers.simulated.telemetry import Telemetry
from providers.simulated.world import CloudWorld

T = TypeVar("T")
Page = list[Body]  # named here because `SimulatedCloud.list` shadows the builtin inside the class
STATE_VERSION = 1
BEHAVIOURS = (
    *compute.BEHAVIOURS,
    *network.BEHAVIOURS,
    *routers.BEHAVIOURS,
    *security_groups.BEHAVIOURS,
    *floating_ips.BEHAVIOURS,
    *block_storage.BEHAVIOURS,
    *images.BEHAVIOURS,
    *backups.BEHAVIOURS,
    *volume_types.BEHAVIOURS,
    *trunks.BEHAVIOURS,
    *aggregates.BEHAVIOURS,
    *load_balancing.BEHAVIOURS,
    *alarms.BEHAVIOURS,
    *identity.BEHAVIOURS,
    *volume_snapshots.BEHAVIOURS,
    *object_storage.BEHAVIOURS,
    *dns.BEHAVIOURS,
    *key_manager.BEHAVIOURS,
    *messaging.BEHAVIOURS,
    *workflows.BEHAVIOURS,
    *workflow_executions.BEHAVIOURS,
    *application_containers.BEHAVIOURS,
    *reservations.BEHAVIOURS,
    *qos.BEHAVIOURS,
    *qos_specs.BEHAVIOURS,
    *quota_sets.BEHAVIOURS,
    *subnet_pools.BEHAVIOURS,
    *container_infra.BEHAVIOURS,
    *monitoring.BEHAVIOURS,
)

ItemAction = Callable[[CloudWorld, Body, str, Mapping[str, Any]], Body]
ITEM_ACTIONS: Mapping[tuple[str, str], ItemAction] = {
    **{("servers", name): compute.server_action for name in compute.SERVER_ACTIONS},
    **{
        ("volumes", name): block_storage.volume_action
        for name in ("os-extend", "os-retype", "os-set_bootable", "os-update_readonly_flag")
    },
    **{("aggregates", name): aggregates.aggregate_action for name in aggregates.AGGREGATE_ACTIONS},
    **{("flavors", name): flavors.flavor_action for name in flavors.FLAVOR_ACTIONS},
    **{("qos_specs", name): qos_specs.qos_specs_action for name in qos_specs.QOS_SPECS_ACTIONS},
    **{("trunks", name): trunks.trunk_action for name in trunks.TRUNK_ACTIONS},
    **{("volume_types", name): volume_types.volume_type_action for name in volume_types.VOLUME_TYPE_ACTIONS},
    ("images", "import"): images.import_image,
    **{
        (application_containers.COLLECTION, name): application_containers.network_attach
        for name in application_containers.NETWORK_ACTIONS
    },
}


def _tags_replaced(world: CloudWorld, body: Body, action: str, request: Mapping[str, Any]) -> Body:
    return {**body, "tags": list(request.get("tags") or ())}


def _metadata_replaced(world: CloudWorld, body: Body, action: str, request: Mapping[str, Any]) -> Body:
    if action == "merge_metadata":
        return {**body, "metadata": {**body.get("metadata", {}), **request.get("metadata", {})}}
    return {**body, "metadata": dict(request.get("metadata") or {})}


GENERIC_ACTIONS: Mapping[str, ItemAction] = {
    "set_tags": _tags_replaced,
    "set_metadata": _metadata_replaced,
    "merge_metadata": _metadata_replaced,
}


def _attach(world: CloudWorld, server: Body, request: Mapping[str, Any]) -> Body:
    return compute.attach_volume(world, server, str(request.get("volumeId")), request.get("device"))


def _detach(world: CloudWorld, server: Body, request: Mapping[str, Any]) -> Body:
    compute.detach_volume(world, server["id"], str(request.get("volumeId")))
    return {}


RelatedAction = Callable[[CloudWorld, Body, Mapping[str, Any]], Body]
RELATED_ACTIONS: Mapping[tuple[str, str], RelatedAction] = {
    ("servers", "attach_volume"): _attach,
    ("servers", "detach_volume"): _detach,
    ("servers", "attach_interface"): compute.attach_interface,
    ("servers", "detach_interface"): compute.detach_interface,
    ("routers", "add_router_interface"): routers.add_router_interface,
    ("routers", "remove_router_interface"): routers.remove_router_interface,
    **load_balancing.DELETE_ACTIONS,
    ("pools", load_balancing.MEMBER_BATCH_ACTION): load_balancing.update_members,
}

PRECEDING_ERRORS: Mapping[CallFault, Callable[[float], CloudError]] = {
    CallFault.SERVER_ERROR: lambda _: InternalError("Unexpected API Error (injected fault)."),
    CallFault.UNAVAILABLE: lambda _: ServiceUnavailable("The service is unavailable (injected fault)."),
    CallFault.RATE_LIMITED: lambda after: TooManyRequests("Rate limit exceeded (injected fault).", after),
    CallFault.TIMEOUT: lambda _: CallTimedOut("The call timed out (injected fault).", applied=False),
    CallFault.FORBIDDEN: lambda _: Forbidden("Policy does not allow this request (injected fault)."),
}


class SimulatedCloud:
    """A simulated OpenStack cloud: collections, statuses, faults, quotas and a concurrency limit."""

    def __init__(
        self,
        settings: CloudSettings | None = None,
        *,
        faults: Faults | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        random_source: random.Random | None = None,
        path: Path | None = None,
        region: str = REGION,
    ) -> None:
        self.settings = settings or CloudSettings()
        self.region = region
        self.random = random_source or random.Random()
        self.faults = FaultPlan(faults or Faults(), self.random)
        self.clock = clock
        self.sleep = sleep
        self.path = path
        self.calls: Counter[str] = Counter()  # calls that reached the world, per operation
        self.calls_by_collection: Counter[tuple[str, str]] = (
            Counter()
        )  # the same, per (operation, collection)
        self.refused: Counter[str] = Counter()  # calls an injected fault stopped before they acted
        self.peak_in_flight = 0
        self._lock = RunnableLock()
        # The slots under the concurrency limit, one token each: a queue implemented in C, so taking
        # and giving back a slot costs no Python-level lock or condition (hundreds of threads do it).
        self._limit = self.settings.max_concurrent or 0
        self._gate: queue.SimpleQueue[None] | None = None
        if self._limit:
            self._gate = queue.SimpleQueue()
            for _ in range(self._limit):
                self._gate.put(None)
        self.world = CloudWorld(BEHAVIOURS, self.settings, self.faults, self.random)
        self.world.now = clock()
        self.telemetry = Telemetry()  # what alarms are evaluated from (`alarm_evaluator`)
        seeds.seed(self.world)
        # Every region of this cloud by name, this one included: one mapping shared by all of them.
        self.regions: dict[str, SimulatedCloud] = {region: self}
        if region == REGION:
            for name in self.settings.region_names[1:]:
                self._add_region(name)

    # regions
    def in_region(self, name: str) -> SimulatedCloud:
        """The region `name` of this cloud; KeyError naming the regions it has when it has none such."""
        found = self.regions.get(name)
        if found is None:
            raise KeyError(f"no region {name!r} (the cloud has: {', '.join(self.regions)})")
        return found

    def _add_region(self, name: str) -> SimulatedCloud:
        sibling = SimulatedCloud(
            self.settings,
            faults=self.faults.faults,
            clock=self.clock,
            sleep=self.sleep,
            random_source=random.Random(self.random.getrandbits(64)),
            region=name,
        )
        sibling.regions = self.regions
        self.regions[name] = sibling
        return sibling

    # persistence
    @classmethod
    def open(cls, path: Path, settings: CloudSettings | None = None, **options: Any) -> SimulatedCloud:
        """The cloud saved at `path`, or a fresh one that will be saved there; its volumes' data
        beside it (`<path>.volumes`) unless `settings` names another directory."""
        settings = settings or CloudSettings()
        if settings.volume_data is None:
            settings = replace(settings, volume_data=path.with_name(path.name + ".volumes"))
        cloud = cls(settings, path=path, **options)
        if path.exists():
            cloud._load(json.loads(path.read_text(encoding="utf-8")), path)
        return cloud

    def save(self) -> None:
        """Write the whole state to the cloud's file atomically (a temporary file, then a rename)."""
        home = self.regions.get(REGION, self)
        if home is not self:
            return home.save()  # the home region holds the file and saves every region
        if self.path is None:
            raise ValueError("this simulated cloud has no file: open it with SimulatedCloud.open(path)")
        others = {name: cloud._state() for name, cloud in self.regions.items() if cloud is not self}
        state = {"version": STATE_VERSION, **self._state(), "regions": others}
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(json.dumps(state, separators=(",", ":")), encoding="utf-8")
        os.replace(temporary, self.path)

    def _state(self) -> dict[str, Any]:
        with self._lock:
            return {
                "now": self.world.now,
                "schedule": self.world.schedule,
                "inventories": {name: list(inventory) for name, inventory in self.world.inventories.items()},
            }

    def _load(self, state: Mapping[str, Any], path: Path) -> None:
        if state.get("version") != STATE_VERSION:
            raise ValueError(f"{path}: unknown simulated cloud state version {state.get('version')!r}")
        self._restore(state)
        for name, saved in (state.get("regions") or {}).items():  # a region once served keeps its state
            (self.regions.get(name) or self._add_region(name))._restore(saved)

    def _restore(self, state: Mapping[str, Any]) -> None:
        world = CloudWorld(BEHAVIOURS, self.settings, self.faults, self.random)
        for name, bodies in state["inventories"].items():
            for body in bodies:
                world.add(name, body)
        for entry in state["schedule"]:
            world.plan(entry[0], entry[2], entry[3], entry[4])
        world.now = state["now"]
        if not len(world.inventory("domains")):  # saved before the cloud had Keystone's collections
            identity.seed(world)
        self.world = world

    # the API, through the call pipeline
    def create(self, collection: str, request: Mapping[str, Any]) -> Body:
        return self._shown(self._call("create", collection, lambda: self._create(collection, request)))

    def get(self, collection: str, item_id: str) -> Body:
        return self._shown(self._call("get", collection, lambda: self.world.require(collection, item_id)))

    def list(
        self,
        collection: str,
        *,
        ids: Collection[str] | None = None,
        name: str | None = None,
        tags: Iterable[str] = (),
        tags_any: Iterable[str] = (),
        where: Mapping[str, Any] | None = None,
    ) -> list[Body]:
        """Items in creation order (or in `ids` order), filtered by name, tags and exact field values."""

        def select() -> list[Body]:
            inventory = self.world.inventory(collection)
            if ids is not None:
                found = [body for item_id in ids if (body := inventory.get(item_id)) is not None]
            else:
                found = inventory.select(name=name, tags=tags, tags_any=tags_any)
            if where:
                found = [
                    body for body in found if all(body.get(key) == value for key, value in where.items())
                ]
            return found

        return [self._shown(body) for body in self._call("list", collection, select)]

    def page(
        self,
        collection: str,
        *,
        limit: int,
        marker: str | None = None,
        name: str | None = None,
        tags: Iterable[str] = (),
        tags_any: Iterable[str] = (),
        predicate: Callable[[Body], bool] | None = None,
        newest_first: bool = False,
    ) -> tuple[Page, bool]:
        """One page of a filtered list: at most `limit` items after `marker`, and whether more remain.

        Filters run on the stored bodies and only the page is copied, so paging through a large
        collection costs one pass per page, not one copy of the collection.
        """

        def select() -> tuple[list[Body], bool]:
            found = self.world.inventory(collection).select(name=name, tags=tags, tags_any=tags_any)
            if predicate is not None:
                found = [body for body in found if predicate(body)]
            if newest_first:
                found.reverse()
            start = 0
            if marker:
                position = next((index for index, body in enumerate(found) if body["id"] == marker), None)
                if position is None:
                    raise BadRequest(f"marker [{marker}] not found")
                start = position + 1
            chosen = found[start : start + max(limit, 0)]
            return chosen, start + len(chosen) < len(found)

        chosen, more = self._call("list", collection, select)
        return [self._shown(body) for body in chosen], more

    def update(self, collection: str, item_id: str, request: Mapping[str, Any]) -> Body:
        def change() -> Body:
            body = self.world.require(collection, item_id)
            check_fields(collection, request)
            updated = self.world.behaviours[collection].update(self.world, body, request)
            return self.world.add(collection, updated)

        return self._shown(self._call("update", collection, change))

    def delete(self, collection: str, item_id: str) -> None:
        self._call("delete", collection, lambda: self.world.remove(collection, item_id))

    def act(self, collection: str, item_id: str, action: str, request: Mapping[str, Any]) -> Body:
        """A non-CRUD call: a server or volume action, a router interface, tags or metadata."""

        def perform() -> Body:
            body = self.world.require(collection, item_id)
            check_fields(collection, request)
            related = RELATED_ACTIONS.get((collection, action))
            if related is not None:
                return related(self.world, body, request)
            on_item = ITEM_ACTIONS.get((collection, action)) or GENERIC_ACTIONS.get(action)
            if on_item is None:
                raise InternalError(f"no action {action!r} on {collection}")
            return self.world.add(collection, on_item(self.world, body, action, request))

        return self._shown(self._call("update", collection, perform))

    # out of band: the world acting behind the clients' backs (no latency, no faults)
    def vanish(self, collection: str, item_id: str) -> None:
        """The resource disappears (deleted by hand, its hypervisor died)."""
        with self._lock:
            self.world.settle(self.clock())
            self.world.remove(collection, item_id)

    def set_status(self, collection: str, item_id: str, status: str) -> None:
        """Force a status, e.g. ERROR; a pending BUILD -> ACTIVE no longer applies."""
        self.change(collection, item_id, {"status": status})

    def change(self, collection: str, item_id: str, fields: Mapping[str, Any]) -> None:
        """Overwrite fields of a resource as someone with console access would."""
        with self._lock:
            self.world.settle(self.clock())
            body = self.world.require(collection, item_id)
            self.world.add(collection, {**body, **fields})

    def hold_in_build(self, collection: str, item_id: str) -> None:
        """Keep a building resource building for ever."""
        with self._lock:
            self.world.schedule = [
                entry for entry in self.world.schedule if (entry[2], entry[3]) != (collection, item_id)
            ]
            heapq.heapify(self.world.schedule)

    def under_lock(self, work: Callable[[CloudWorld], T]) -> T:
        """`work` on the world settled to now, under the lock, with no latency or faults: the cloud's
        own background work (alarm evaluation), not a client's call."""
        with self._lock:
            self.world.settle(self.clock())
            return work(self.world)

    def items(self, collection: str) -> Page:
        """What a collection holds now, as stored (no call, no latency: for the cloud's own agents)."""
        with self._lock:
            self.world.settle(self.clock())
            return list(self.world.inventory(collection))

    def count(self, collection: str) -> int:
        """How many items a collection holds now (no call, no latency: for tests and reports)."""
        with self._lock:
            self.world.settle(self.clock())
            return len(self.world.inventory(collection))

    # the pipeline
    def _call(self, operation: str, collection: str, work: Callable[[], T]) -> T:
        gate = self._gate
        if gate is not None:
            self._enter(gate)
        try:
            latency = self.settings.latency.of(operation)
            if latency > 0:
                self.sleep(latency)
            fault = self.faults.draw(operation, collection)
            with self._lock:
                if gate is not None:
                    self.peak_in_flight = max(self.peak_in_flight, self._limit - gate.qsize())
                if fault is not None and fault is not CallFault.LOST_RESPONSE:
                    self.refused[operation] += 1
                    raise PRECEDING_ERRORS[fault](self.faults.faults.retry_after)
                self.calls[operation] += 1
                self.calls_by_collection[operation, collection] += 1
                self.world.settle(self.clock())
                result = work()
        finally:
            if gate is not None:
                gate.put(None)
        if fault is CallFault.LOST_RESPONSE:
            raise CallTimedOut("The call timed out after the cloud acted (injected fault).", applied=True)
        return result

    def _enter(self, gate: queue.SimpleQueue[None]) -> None:
        """Take one of the `max_concurrent` slots: wait for it, or refuse with a 429."""
        if not self.settings.reject_over_limit:
            gate.get()
            return
        try:
            gate.get_nowait()
        except queue.Empty:
            raise TooManyRequests(
                f"Over the limit of {self.settings.max_concurrent} concurrent calls.",
                self.settings.retry_after,
            ) from None

    @property
    def in_flight(self) -> int:
        """Calls holding a slot under the concurrency limit now (0 when there is no limit)."""
        return 0 if self._gate is None else self._limit - self._gate.qsize()

    def _create(self, collection: str, request: Mapping[str, Any]) -> Body:
        world = self.world
        behaviour = world.behaviours.get(collection)
        if behaviour is None:
            raise InternalError(f"no collection {collection!r} in this cloud")
        check_fields(collection, request)
        world.check_quota(collection)
        body = behaviour.create(world, request)
        if getattr(behaviour, "builds_on_create", True):
            body = world.start_building(collection, body)
        shown_once: frozenset[str] = getattr(behaviour, "shown_once", frozenset())
        stored = {key: value for key, value in body.items() if key not in shown_once} if shown_once else body
        world.add(collection, stored)
        return body

    @staticmethod
    def _shown(body: Body) -> Body:
        """A caller's copy of a body. Made after the cloud's lock is let go: stored bodies are
        replaced on change, never changed in place, so copying one needs no lock."""
        return dict(body)
