"""An Octavia object of a load balancer's tree (load balancer, listener, pool, member, health
monitor, L7 policy, L7 rule), through the SDK's load_balancer proxy.

Create is one `POST` carrying the marker tags in the body (Octavia takes tags since API 2.5).
Readiness follows `provisioning_status`: PENDING_* is IN_PROGRESS, ACTIVE is READY, ERROR is FAILED.
While a load balancer applies a change, Octavia refuses every other change to its tree with 409
"... is immutable": that is a wait, not something in the way, so it is raised as a plain Retryable,
never as a conflict (a conflict would make a replacement delete the old copy first), and without a
fixed delay: the engine's exponential backoff with jitter spreads the children of one load balancer
that all wait for it, where a fixed short delay would spend their attempts while one of them wins.
Observe is one paged list filtered by the tag every resource of this provider carries, and the
whole project's list only when some wanted id is not among them. Members and L7 rules live
under their pool or policy: the parent of each is remembered from create and observe, and found
by listing the parents (whose bodies list their children's ids) when it is not known.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Retryable
from providers.openstack.json_api import JsonApi
from providers.openstack.marker_tags import (
    MANAGED_TAG,
    marker_from_tags,
    marker_tag,
    marker_tags,
    physical_name,
)
from providers.openstack.name_lookup import NameLookup
from providers.openstack.octavia_tables import OctaviaTable

PENDING = frozenset({"PENDING_CREATE", "PENDING_UPDATE", "PENDING_DELETE"})


@contextmanager
def waiting_while_immutable() -> Iterator[None]:
    """Octavia's 409 for a load balancer busy with another change: retry, not a conflict."""
    try:
        yield
    except Retryable as error:
        if error.conflict and "immutable" in str(error):
            raise Retryable(str(error)) from error
        raise


def octavia_status(item: Mapping[str, Any]) -> tuple[LiveStatus, str]:
    status = str(item.get("provisioning_status") or "")
    if status == "ERROR":
        return LiveStatus.FAILED, "provisioning_status ERROR"
    if status in PENDING:
        return LiveStatus.IN_PROGRESS, status
    return LiveStatus.READY, ""


@dataclass
class ParentIndex:
    """Which pool holds a member (which policy a rule): remembered, and re-read when unknown."""

    parents: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def remember(self, child_id: str, parent_id: str) -> None:
        with self.lock:
            self.parents[child_id] = parent_id

    def known(self, child_id: str) -> str | None:
        with self.lock:
            return self.parents.get(child_id)

    def forget(self, child_id: str) -> None:
        with self.lock:
            self.parents.pop(child_id, None)


@dataclass(frozen=True)
class OctaviaResourceHandler:
    api: JsonApi
    names: NameLookup  # Neutron's subnets and networks and Octavia's own objects
    table: OctaviaTable
    index: ParentIndex = field(default_factory=ParentIndex)

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = self.body(properties)
        if self.table.named and not body.get("name"):
            body["name"] = physical_name(marker)
        body["tags"] = marker_tags(marker)
        parent_id = self.parent_of_properties(properties)
        with waiting_while_immutable():
            item = self.api.post(self.table.path(parent_id), {self.table.singular: body})[self.table.singular]
        return self.live(item, parent_id)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        parent_id = self.parent_of_properties(properties)
        path = f"{self.table.path(parent_id)}/{physical_id}"
        body = self.body(properties, only=changed)
        if self.table.named and "name" in body and not body["name"]:
            del body["name"]  # an unnamed resource keeps the name it was given
        with waiting_while_immutable():
            if body:
                item = self.api.put(path, {self.table.singular: body})[self.table.singular]
            else:
                item = self.api.get(path)[self.table.singular]
        return self.live(item, parent_id)

    def delete(self, physical_id: str) -> None:
        parent_id = self.parent_of_child(physical_id) if self.table.parent else None
        with waiting_while_immutable():
            self.api.delete(f"{self.table.path(parent_id)}/{physical_id}")
        self.index.forget(physical_id)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        if self.table.parent is None:
            return self.observed_under(None, wanted)
        seen: dict[str, LiveResource] = {}
        by_parent: dict[str, set[str]] = {}
        for child_id in wanted:
            parent_id = self.index.known(child_id)
            if parent_id is not None:
                by_parent.setdefault(parent_id, set()).add(child_id)
        unplaced = wanted - {child for children in by_parent.values() for child in children}
        if unplaced:
            for parent_id, child_id in self.placed(unplaced):
                by_parent.setdefault(parent_id, set()).add(child_id)
        for parent_id, children in by_parent.items():
            seen.update(self.observed_under(parent_id, children))
        return seen

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        tag = marker_tag(marker)
        parents = [None] if self.table.parent is None else [item["id"] for item in self.parents()]
        for parent_id in parents:
            for item in self.api.list_all(self.table.path(parent_id), self.table.segment, {"tags": tag}):
                if tag in (item.get("tags") or []):
                    return replace(self.live(item, parent_id), marker=marker)
        return None

    def observed_under(self, parent_id: str | None, wanted: set[str]) -> dict[str, LiveResource]:
        """The wanted items of one collection: this provider's first, the whole list if some are missing."""
        path = self.table.path(parent_id)
        seen: dict[str, LiveResource] = {}
        for query in ({"tags": MANAGED_TAG}, {}):
            for item in self.api.list_all(path, self.table.segment, query):
                if item["id"] in wanted:
                    seen[item["id"]] = self.live(item, parent_id)
            if not wanted - seen.keys():
                break
        return seen

    def parents(self) -> Iterator[dict[str, Any]]:
        parent = self.table.parent
        assert parent is not None
        yield from self.api.list_all(parent.path, parent.collection)

    def placed(self, children: set[str]) -> Iterator[tuple[str, str]]:
        """(parent, child) for each of `children` some parent lists, read from one list of parents."""
        parent = self.table.parent
        assert parent is not None
        for item in self.parents():
            for entry in item.get(parent.children) or []:
                if entry.get("id") in children:
                    self.index.remember(entry["id"], item["id"])
                    yield item["id"], entry["id"]

    def parent_of_child(self, child_id: str) -> str:
        known = self.index.known(child_id)
        if known is not None:
            return known
        for parent_id, _ in self.placed({child_id}):
            return parent_id
        raise NotFound(f"{self.table.type_name} {child_id} could not be found under any of its parents")

    def parent_of_properties(self, properties: Mapping[str, Any]) -> str | None:
        parent = self.table.parent
        if parent is None:
            return None
        return self.names.id_of(parent.kind, str(properties[parent.property]))

    def body(self, properties: Mapping[str, Any], only: frozenset[str] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for name, value in properties.items():
            target = self.table.fields.get(name)
            if target is None or (only is not None and name not in only) or (value is None and only is None):
                continue
            body[target.body_key] = None if value is None else target.convert(value, self.names)
        return body

    def live(self, item: Mapping[str, Any], parent_id: str | None) -> LiveResource:
        if parent_id is not None:
            self.index.remember(item["id"], parent_id)
        status, reason = octavia_status(item)
        tags = item.get("tags") or []
        properties = {
            name: item.get(target.body_key)
            for name, target in self.table.fields.items()
            if target.body_key in item
        }
        attributes: dict[str, Any] = {name: item.get(name) for name in self.table.attributes}
        if self.table.parent is not None:
            properties[self.table.parent.property] = parent_id
            attributes[f"{self.table.parent.property}_id"] = parent_id
        return LiveResource(
            physical_id=item["id"],
            type=self.table.type_name,
            status=status,
            status_reason=reason,
            properties=properties,
            attributes={**attributes, "show": dict(item)},
            marker=marker_from_tags(tags),
        )
