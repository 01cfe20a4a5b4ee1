"""Magnum's cluster templates and clusters (container-infra v1).

A cluster template names an image, flavors, a key pair and an external network, by name or id;
Magnum checks each when the template is made and answers 404 for one it cannot find (400 for a
network that is not external), and refuses to change or delete a template clusters use (400). A
cluster goes CREATE_IN_PROGRESS -> CREATE_COMPLETE; a change of its node count goes
UPDATE_IN_PROGRESS -> UPDATE_COMPLETE, and no change is taken while it is in progress (409). Its
addresses are made up: one per master and per node.

Limits: no Heat stack, servers or load balancer are made behind a cluster; labels are kept, never
read; images are not checked for their `os_distro` property.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.world import READY, Building, CloudWorld

MAGNUM_QUOTA_STATUS = 403
CLUSTER_BUILDING = Building(
    building="CREATE_IN_PROGRESS",
    ready="CREATE_COMPLETE",
    error="CREATE_FAILED",
    settling=("UPDATE_IN_PROGRESS",),
    ready_after={"UPDATE_IN_PROGRESS": "UPDATE_COMPLETE"},
)
IN_PROGRESS = frozenset({"CREATE_IN_PROGRESS", "UPDATE_IN_PROGRESS", "DELETE_IN_PROGRESS"})
# What a template referenced by clusters may still change, as Magnum allows.
TEMPLATE_UPDATABLE_IN_USE = frozenset({"name", "public", "hidden"})
TEMPLATE_FIELDS = ("name", "coe", "image_id", "flavor_id", "master_flavor_id", "keypair_id",
                   "external_network_id", "fixed_network", "fixed_subnet", "dns_nameserver",
                   "docker_volume_size", "docker_storage_driver", "network_driver", "volume_driver",
                   "http_proxy", "https_proxy", "no_proxy", "labels", "tls_disabled", "public",
                   "registry_enabled", "server_type", "master_lb_enabled", "floating_ip_enabled",
                   "hidden", "tags")  # fmt: skip
CLUSTER_UPDATABLE = frozenset({"node_count", "health_status", "health_status_reason"})
COE_VERSIONS = {"kubernetes": "v1.28.9", "swarm": "1.2.5", "mesos": "1.0.0"}


def find_named(world: CloudWorld, collection: str, name_or_id: str) -> Body | None:
    """An item by id, else by name (Magnum takes either)."""
    inventory = world.inventory(collection)
    found = inventory.get(name_or_id)
    if found is not None:
        return found
    return next((body for body in inventory if body.get("name") == name_or_id), None)


class ClusterTemplates:
    collection = "clustertemplates"
    quota_status = MAGNUM_QUOTA_STATUS
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        if request.get("coe") not in COE_VERSIONS:
            raise BadRequest(f"Invalid input for field/attribute coe. Value: '{request.get('coe')}'.")
        image = self._required(world, request, "image_id", "images", "Image")
        external = self._required(world, request, "external_network_id", "networks", "external network")
        if not external.get("router:external"):
            raise BadRequest(f"{request['external_network_id']} is not an external network.")
        found = {
            "flavor_id": self._optional(world, request, "flavor_id", "flavors", "flavor"),
            "master_flavor_id": self._optional(world, request, "master_flavor_id", "flavors", "flavor"),
            "keypair_id": self._optional(world, request, "keypair_id", "keypairs", "keypair"),
        }
        now = world.timestamp()
        body: Body = {key: request.get(key) for key in TEMPLATE_FIELDS}
        return {
            **body,
            **{key: value for key, value in found.items() if value is not None},
            **identified(world.new_id()),
            "image_id": image["id"],
            "external_network_id": external["id"],
            "labels": dict(request.get("labels") or {}),
            "server_type": request.get("server_type") or "vm",
            "cluster_distro": "fedora-coreos",
            "apiserver_port": None,
            "project_id": world.settings.project_id,
            "user_id": world.settings.user_id,
            "created_at": now,
            "updated_at": None,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        in_use = [c for c in world.inventory("clusters") if c["cluster_template_id"] == body["uuid"]]
        if in_use and set(request) - TEMPLATE_UPDATABLE_IN_USE:
            raise BadRequest(
                f"ClusterTemplate {body['uuid']} is referenced by one or multiple clusters; only "
                f"{', '.join(sorted(TEMPLATE_UPDATABLE_IN_USE))} may change."
            )
        unknown = sorted(set(request) - set(TEMPLATE_FIELDS))
        if unknown:
            raise BadRequest(f"Couldn't apply patch: {', '.join(unknown)} cannot be changed.")
        return {**body, **request, "updated_at": world.timestamp()}

    def delete(self, world: CloudWorld, body: Body) -> None:
        if any(cluster["cluster_template_id"] == body["uuid"] for cluster in world.inventory("clusters")):
            raise BadRequest(f"ClusterTemplate {body['uuid']} is referenced by one or multiple clusters.")

    @staticmethod
    def _required(
        world: CloudWorld, request: Mapping[str, Any], key: str, collection: str, what: str
    ) -> Body:
        value = request.get(key)
        if not value:
            raise BadRequest(f"Mandatory field missing: {key}.")
        found = find_named(world, collection, str(value))
        if found is None:
            raise ItemNotFound(f"Unable to find {what} {value}.")
        return found

    @staticmethod
    def _optional(
        world: CloudWorld, request: Mapping[str, Any], key: str, collection: str, what: str
    ) -> str | None:
        value = request.get(key)
        if not value:
            return None
        found = find_named(world, collection, str(value))
        if found is None:
            raise ItemNotFound(f"Unable to find {what} {value}.")
        return str(found["name"] if collection == "keypairs" else found["id"])


class Clusters:
    collection = "clusters"
    quota_status = MAGNUM_QUOTA_STATUS
    building: Building | None = CLUSTER_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        template = find_named(world, "clustertemplates", str(request.get("cluster_template_id") or ""))
        if template is None:
            raise ItemNotFound(f"ClusterTemplate {request.get('cluster_template_id')} could not be found.")
        keypair = request.get("keypair") or template.get("keypair_id")
        if keypair and find_named(world, "keypairs", str(keypair)) is None:
            raise ItemNotFound(f"Unable to find keypair {keypair}.")
        node_count, master_count = _count(request, "node_count"), _count(request, "master_count")
        now = world.timestamp()
        cluster: Body = {
            **identified(world.new_id()),
            "name": request.get("name") or f"cluster-{world.new_id()[:8]}",
            "cluster_template_id": template["uuid"],
            "keypair": keypair,
            "node_count": node_count,
            "master_count": master_count,
            "discovery_url": request.get("discovery_url"),
            "create_timeout": request.get("create_timeout", 60),
            "flavor_id": request.get("flavor_id") or template.get("flavor_id"),
            "master_flavor_id": request.get("master_flavor_id") or template.get("master_flavor_id"),
            "fixed_network": request.get("fixed_network") or template.get("fixed_network"),
            "fixed_subnet": request.get("fixed_subnet") or template.get("fixed_subnet"),
            "floating_ip_enabled": request.get("floating_ip_enabled", template.get("floating_ip_enabled")),
            "master_lb_enabled": template.get("master_lb_enabled"),
            "labels": dict(request.get("labels") or template.get("labels") or {}),
            "coe_version": COE_VERSIONS.get(str(template.get("coe"))),
            "container_version": "1.12.6",
            "stack_id": world.new_id(),
            "status": CLUSTER_BUILDING.building,
            "status_reason": None,
            "health_status": None,
            "project_id": world.settings.project_id,
            "user_id": world.settings.user_id,
            "created_at": now,
            "updated_at": None,
        }
        return {**cluster, **addresses(cluster)}

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        if body["status"] in IN_PROGRESS:
            raise Conflict(f'Updating a cluster when status is "{body["status"]}" is not supported')
        unknown = sorted(set(request) - CLUSTER_UPDATABLE)
        if unknown:
            raise BadRequest(f"Couldn't apply patch: {', '.join(unknown)} cannot be changed.")
        node_count = _count(request, "node_count") if "node_count" in request else body["node_count"]
        changed = {**body, **request, "node_count": node_count, "updated_at": world.timestamp()}
        changed.update(addresses(changed))
        if world.settings.time_to_active <= 0:
            return {**changed, "status": "UPDATE_COMPLETE"}
        world.plan(world.now + world.settings.time_to_active, "clusters", body["uuid"], READY)
        return {**changed, "status": "UPDATE_IN_PROGRESS"}

    def delete(self, world: CloudWorld, body: Body) -> None:
        """Nothing is held elsewhere: no stack stands behind a simulated cluster."""


def identified(uuid: str) -> Body:
    """Magnum names its items by `uuid`; the cloud's collections keep every item by `id` too."""
    return {"id": uuid, "uuid": uuid}


def addresses(cluster: Mapping[str, Any]) -> Body:
    """The addresses a completed cluster shows: its API, its masters and its nodes."""
    masters = [f"172.24.4.{10 + index}" for index in range(int(cluster["master_count"]))]
    nodes = [f"172.24.{5 + index // 250}.{index % 250 + 2}" for index in range(int(cluster["node_count"]))]
    return {"api_address": f"https://{masters[0]}:6443", "master_addresses": masters, "node_addresses": nodes}


def _count(request: Mapping[str, Any], key: str) -> int:
    value = request.get(key, 1)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise BadRequest(
            f"Invalid input for field/attribute {key}. Value: '{value}'. Value should be at least 1."
        )
    return value


BEHAVIOURS = (ClusterTemplates(), Clusters())
