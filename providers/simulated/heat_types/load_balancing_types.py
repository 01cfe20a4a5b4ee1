"""OS::Octavia::* on the simulated cloud, in process: the load balancer's tree and flavors.

Each type is one collection of the model (`providers.simulated.load_balancing`), tagged with the
marker like Neutron's. Readiness follows `provisioning_status`; a delete is Octavia's asynchronous
one (PENDING_DELETE, then gone). While a load balancer applies a change the model refuses its
tree's changes with Octavia's 409 "immutable": a wait, raised as a plain Retryable rather than a
conflict, as the OpenStack provider does. Names of Octavia objects resolve within their collections.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, Retryable
from providers.marker_text import NEUTRON_DESCRIPTION, is_digest
from providers.pool_member_batches import PoolMemberBatches, UntilLoadBalancerFree
from providers.simulated.boundary import provider_errors
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.adapter import TaggedCollection, split_tags
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body
from providers.simulated.load_balancing import DELETE_ACTION, MEMBER_BATCH_ACTION

PENDING = frozenset({"PENDING_CREATE", "PENDING_UPDATE", "PENDING_DELETE"})
# Heat property -> (API field, collection its name resolves in, what to call it in an error)
Resolved = Mapping[str, tuple[str, str, str]]


@contextmanager
def waiting_while_immutable() -> Iterator[None]:
    try:
        with provider_errors():
            yield
    except Retryable as error:
        if error.conflict and "immutable" in str(error):
            raise Retryable(str(error)) from error
        raise


def octavia_live_status(body: Body) -> tuple[LiveStatus, str]:
    status = str(body.get("provisioning_status") or "")
    if status == "ERROR":
        return LiveStatus.FAILED, "provisioning_status ERROR"
    if status in PENDING:
        return LiveStatus.IN_PROGRESS, status
    return LiveStatus.READY, ""


class OctaviaCollection(TaggedCollection):
    """A collection of a load balancer's tree."""

    resolved: ClassVar[Resolved] = {}
    parent_field: ClassVar[str | None] = None  # the request field naming a nested object's parent
    named: ClassVar[bool] = True
    attribute_fields: ClassVar[tuple[str, ...]] = ()

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = self.create_request(cloud, properties, marker)
        if self.named and not request.get("name"):
            request["name"] = f"{marker.stack}-{marker.resource}-{marker.record_id[:12]}"
        with waiting_while_immutable():
            return self.live(cloud, cloud.create(self.collection, request))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        request = self.fields(cloud, {name: properties.get(name) for name in changed}, keep_empty=True)
        with waiting_while_immutable():
            body = (
                cloud.update(self.collection, physical_id, request)
                if request
                else cloud.get(self.collection, physical_id)
            )
        return self.live(cloud, body)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        with waiting_while_immutable():
            cloud.act(self.collection, physical_id, DELETE_ACTION, {"cascade": False})

    def fields(self, cloud: SimulatedCloud, properties: Mapping[str, Any], keep_empty: bool = False) -> Body:
        request = {
            field: properties[name]
            for name, field in self.passthrough.items()
            if name in properties and (keep_empty or properties[name] is not None)
        }
        for name, (field, collection, what) in self.resolved.items():
            value = properties.get(name)
            if value:
                request[field] = self.resolver.id_of(collection, str(value), what)
            elif keep_empty and name in properties:
                request[field] = None
        return request

    def properties_of(self, body: Body) -> dict[str, Any]:
        properties = super().properties_of(body)
        for name, (field, _, _) in self.resolved.items():
            if field in body:
                properties[name] = body[field]
        return properties

    def live(self, cloud: SimulatedCloud, body: Body) -> LiveResource:
        marker, _ = split_tags(body)
        status, reason = octavia_live_status(body)
        public = {key: value for key, value in body.items() if key[0] != "_"}
        return LiveResource(
            physical_id=body["id"],
            type=self.type_name,
            status=status,
            status_reason=reason,
            properties=self.properties_of(body),
            attributes={**{name: body.get(name) for name in self.attribute_fields}, "show": public},
            marker=marker,
        )


class LoadBalancerType(OctaviaCollection):
    type_name = "OS::Octavia::LoadBalancer"
    collection = "loadbalancers"
    passthrough = {
        name: name
        for name in ("name", "description", "admin_state_up", "vip_address", "provider", "availability_zone")
    }
    resolved = {
        "vip_subnet": ("vip_subnet_id", "subnets", "Subnet"),
        "vip_network": ("vip_network_id", "networks", "Network"),
        "flavor": ("flavor_id", "lb_flavors", "Flavor"),
    }
    attribute_fields = (
        "vip_address",
        "vip_port_id",
        "vip_subnet_id",
        "vip_network_id",
        "pools",
        "listeners",
        "flavor_id",
        "availability_zone",
        "provisioning_status",
        "operating_status",
    )


class ListenerType(OctaviaCollection):
    type_name = "OS::Octavia::Listener"
    collection = "listeners"
    passthrough = {
        name: name
        for name in (
            "protocol_port",
            "protocol",
            "description",
            "name",
            "admin_state_up",
            "connection_limit",
            "default_tls_container_ref",
            "sni_container_refs",
            "allowed_cidrs",
        )
    }
    resolved = {
        "loadbalancer": ("loadbalancer_id", "loadbalancers", "Load Balancer"),
        "default_pool": ("default_pool_id", "pools", "Pool"),
    }
    attribute_fields = ("loadbalancers", "default_pool_id", "provisioning_status", "operating_status")


class PoolType(OctaviaCollection):
    type_name = "OS::Octavia::Pool"
    collection = "pools"
    passthrough = {
        name: name
        for name in (
            "admin_state_up",
            "description",
            "session_persistence",
            "name",
            "lb_algorithm",
            "protocol",
            "tls_enabled",
        )
    }
    resolved = {
        "listener": ("listener_id", "listeners", "Listener"),
        "loadbalancer": ("loadbalancer_id", "loadbalancers", "Load Balancer"),
    }
    attribute_fields = (
        "healthmonitor_id",
        "listeners",
        "members",
        "loadbalancers",
        "provisioning_status",
        "operating_status",
    )


class PoolMemberType(OctaviaCollection):
    """Members of one pool created together go as one batch member update (`pool_member_batches`)."""

    type_name = "OS::Octavia::PoolMember"
    collection = "members"
    named = False
    passthrough = {
        name: name
        for name in (
            "address",
            "protocol_port",
            "monitor_address",
            "monitor_port",
            "weight",
            "admin_state_up",
        )
    }
    resolved = {"pool": ("pool_id", "pools", "Pool"), "subnet": ("subnet_id", "subnets", "Subnet")}
    attribute_fields = ("address", "provisioning_status", "operating_status")

    def __init__(self, resolver: NameResolver) -> None:
        super().__init__(resolver)
        self._batches: PoolMemberBatches[LiveResource] | None = None
        self._batches_lock = threading.Lock()

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = self.create_request(cloud, properties, marker)
        return self.batches(cloud).create(str(request.get("pool_id")), request)

    def batches(self, cloud: SimulatedCloud) -> PoolMemberBatches[LiveResource]:
        with self._batches_lock:
            if self._batches is None:
                until_free = UntilLoadBalancerFree(
                    lambda pool_id: str(cloud.get("pools", pool_id)["loadbalancers"][0]["id"]),
                    lambda lb_id: str(cloud.get("loadbalancers", lb_id)["provisioning_status"]),
                    cloud.sleep,
                )
                self._batches = PoolMemberBatches(
                    lambda _, request: self.create_one(cloud, request),
                    lambda pool_id, requests: self.create_many(cloud, pool_id, requests),
                    until_free,
                )
            return self._batches

    def create_one(self, cloud: SimulatedCloud, request: Mapping[str, Any]) -> LiveResource:
        with waiting_while_immutable():
            return self.live(cloud, cloud.create(self.collection, request))

    def create_many(
        self, cloud: SimulatedCloud, pool_id: str, requests: Sequence[Mapping[str, Any]]
    ) -> list[LiveResource | BaseException]:
        """One batch update adding the members not in the pool yet; a taken address is a conflict."""
        with waiting_while_immutable():
            taken = {
                member_address(body) for body in cloud.list(self.collection, where={"_pool_id": pool_id})
            }
            added = [request for request in requests if member_address(request) not in taken]
            answer = cloud.act(
                "pools", pool_id, MEMBER_BATCH_ACTION, {"members": added, "additive_only": True}
            )
        made = {member_address(body): body for body in answer["members"]}
        return [
            self.live(cloud, made[member_address(request)])
            if member_address(request) in made
            else Retryable(taken_address(request), conflict=True)
            for request in requests
        ]

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {**super().properties_of(body), "pool": body.get("_pool_id")}

    def live(self, cloud: SimulatedCloud, body: Body) -> LiveResource:
        live = super().live(cloud, body)
        return replace(live, attributes={**live.attributes, "pool_id": body.get("_pool_id")})


def member_address(body: Mapping[str, Any]) -> tuple[Any, Any]:
    return body.get("address"), body.get("protocol_port")


def taken_address(request: Mapping[str, Any]) -> str:
    """Octavia's words for a member whose address and port another member of the pool has."""
    address, port = member_address(request)
    return f"Another member on this pool is already using ip {address} on protocol_port {port}"


class HealthMonitorType(OctaviaCollection):
    type_name = "OS::Octavia::HealthMonitor"
    collection = "healthmonitors"
    named = False
    passthrough = {
        name: name
        for name in (
            "admin_state_up",
            "delay",
            "expected_codes",
            "http_method",
            "max_retries",
            "timeout",
            "type",
            "url_path",
        )
    }
    resolved = {"pool": ("pool_id", "pools", "Pool")}
    attribute_fields = ("pools", "provisioning_status", "operating_status")

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {**super().properties_of(body), "pool": body["pools"][0]["id"]}


class L7PolicyType(OctaviaCollection):
    type_name = "OS::Octavia::L7Policy"
    collection = "l7policies"
    passthrough = {
        name: name for name in ("name", "description", "admin_state_up", "action", "redirect_url", "position")
    }
    resolved = {
        "redirect_pool": ("redirect_pool_id", "pools", "Pool"),
        "listener": ("listener_id", "listeners", "Listener"),
    }
    attribute_fields = ("rules", "provisioning_status", "operating_status")


class L7RuleType(OctaviaCollection):
    type_name = "OS::Octavia::L7Rule"
    collection = "l7rules"
    named = False
    passthrough = {
        name: name for name in ("admin_state_up", "type", "compare_type", "invert", "key", "value")
    }
    resolved = {"l7policy": ("l7policy_id", "l7policies", "L7 Policy")}
    attribute_fields = ("provisioning_status", "operating_status")

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {**super().properties_of(body), "l7policy": body.get("_l7policy_id")}


class LoadBalancerFlavorType(OctaviaCollection):
    """Octavia flavors carry no tags: the marker is the description when the template gives none."""

    type_name = "OS::Octavia::Flavor"
    collection = "lb_flavors"
    passthrough = {"name": "name", "description": "description", "enabled": "enabled"}
    resolved = {"flavor_profile": ("flavor_profile_id", "lb_flavor_profiles", "Flavor Profile")}
    attribute_fields = ("flavor_profile_id",)

    def create_request(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> Body:
        request = self.fields(cloud, properties)
        request["description"] = properties.get("description") or NEUTRON_DESCRIPTION.fitted(marker.tag)
        return request

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        with provider_errors():
            cloud.delete(self.collection, physical_id)

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        text = NEUTRON_DESCRIPTION.fitted(marker.tag)
        with provider_errors():
            bodies = [body for body in cloud.list(self.collection) if body.get("description") == text]
        return replace(self.live(cloud, bodies[0]), marker=marker) if bodies else None

    def live(self, cloud: SimulatedCloud, body: Body) -> LiveResource:
        live = super().live(cloud, body)
        description = body.get("description")
        marker = Marker.parse(description) if isinstance(description, str) else None
        properties = dict(live.properties)
        if marker is not None or (isinstance(description, str) and is_digest(description)):
            properties["description"] = ""
        return replace(live, status=LiveStatus.READY, properties=properties, marker=marker)


TYPES = (
    LoadBalancerType,
    ListenerType,
    PoolType,
    PoolMemberType,
    HealthMonitorType,
    L7PolicyType,
    L7RuleType,
    LoadBalancerFlavorType,
)
