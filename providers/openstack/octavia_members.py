"""OS::Octavia::PoolMember: members of one pool created together go as one batch member update.

A lone member is Octavia's plain `POST .../pools/{pool_id}/members`. Members of one pool created
at the same time (a resource group's nodes, each a member) wait together until the load balancer
is free and go as one `PUT .../pools/{pool_id}/members?additive_only=true` (API 2.11): one change
of the load balancer instead of one per member, each refused while the one before is applied.
That call answers 202 with no body, so the members it made are then read back from the pool's
list and found by their marker tags. A member whose address and port the pool already has is
refused as the plain create refuses it (a conflict), never matched to the other member, which the
batch update would otherwise change.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from providers.interface import LiveResource, Marker, Retryable
from providers.openstack.marker_tags import MANAGED_TAG, marker_tags
from providers.openstack.octavia_resource import OctaviaResourceHandler, waiting_while_immutable
from providers.pool_member_batches import PoolMemberBatches, UntilLoadBalancerFree

ADDITIVE_ONLY = {"additive_only": "true"}


def member_address(body: Mapping[str, Any]) -> tuple[Any, Any]:
    return body.get("address"), body.get("protocol_port")


def taken_address(body: Mapping[str, Any]) -> Retryable:
    """Octavia's conflict for a member whose address and port another member of the pool has."""
    address, port = member_address(body)
    message = f"Another member on this pool is already using ip {address} on protocol_port {port}"
    return Retryable(message, conflict=True)


@dataclass(frozen=True)
class PoolMemberHandler(OctaviaResourceHandler):
    pause: Callable[[float], None] = time.sleep
    batches: PoolMemberBatches[LiveResource] = field(init=False)

    def __post_init__(self) -> None:
        until_free = UntilLoadBalancerFree(self.load_balancer_of, self.load_balancer_status, self.pause)
        # frozen: the batches are made once, here
        object.__setattr__(self, "batches", PoolMemberBatches(self.create_one, self.create_many, until_free))

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = self.body(properties)
        body["tags"] = marker_tags(marker)
        pool_id = self.parent_of_properties(properties)
        assert pool_id is not None  # a member's table has its pool as parent
        return self.batches.create(pool_id, body)

    def create_one(self, pool_id: str, body: Mapping[str, Any]) -> LiveResource:
        with waiting_while_immutable():
            item = self.api.post(self.table.path(pool_id), {self.table.singular: body})[self.table.singular]
        return self.live(item, pool_id)

    def create_many(
        self, pool_id: str, bodies: Sequence[Mapping[str, Any]]
    ) -> list[LiveResource | BaseException]:
        path = self.table.path(pool_id)
        with waiting_while_immutable():
            taken = {member_address(item) for item in self.api.list_all(path, self.table.segment)}
            added = [body for body in bodies if member_address(body) not in taken]
            self.api.with_headers("PUT", path, params=ADDITIVE_ONLY, body={"members": added})
            listed = self.api.list_all(path, self.table.segment, {"tags": MANAGED_TAG})
            made = {tag: item for item in listed for tag in item.get("tags") or ()}
        answers: list[LiveResource | BaseException] = []
        for body in bodies:
            item = made.get(body["tags"][0])
            if item is not None:
                answers.append(self.live(item, pool_id))
            elif body in added:
                answers.append(Retryable(f"the batch member update made no member tagged {body['tags'][0]}"))
            else:
                answers.append(taken_address(body))
        return answers

    def load_balancer_of(self, pool_id: str) -> str:
        return str(self.api.get(f"/lbaas/pools/{pool_id}")["pool"]["loadbalancers"][0]["id"])

    def load_balancer_status(self, lb_id: str) -> str:
        return str(self.api.get(f"/lbaas/loadbalancers/{lb_id}")["loadbalancer"]["provisioning_status"])
