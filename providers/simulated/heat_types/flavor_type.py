"""OS::Nova::Flavor on the simulated cloud: a flavor with its extra specs and private project
access. Flavors take no tags; the marker is the extra spec `reconciler:marker`, as the OpenStack
provider keeps it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.marker_text import METADATA_VALUE, bounded_name
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body

MARKER_SPEC = "reconciler:marker"


class Flavor:
    type_name: ClassVar[str] = "OS::Nova::Flavor"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        if properties.get("tenants") and properties.get("is_public", True):
            raise Permanent("a flavor's tenants need is_public false: a public flavor has no access list")
        found = self.find_by_marker(cloud, marker)
        if found is not None:
            return found
        request: Body = {
            "name": properties.get("name")
            or bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id}"),
            "ram": properties.get("ram"),
            "vcpus": properties.get("vcpus"),
            "disk": properties.get("disk", 0),
            "swap": properties.get("swap", 0),
            "OS-FLV-EXT-DATA:ephemeral": properties.get("ephemeral", 0),
            "rxtx_factor": properties.get("rxtx_factor", 1.0),
            "os-flavor-access:is_public": bool(properties.get("is_public", True)),
        }
        if properties.get("flavorid"):
            request["id"] = str(properties["flavorid"])
        flavor = cloud.create("flavors", request)
        specs = {**_specs(properties), MARKER_SPEC: METADATA_VALUE.fitted(marker.tag)}
        flavor = cloud.act("flavors", flavor["id"], "set_extra_specs", {"extra_specs": specs})
        for tenant in properties.get("tenants") or ():
            flavor = cloud.act(
                "flavors", flavor["id"], "addTenantAccess", {"addTenantAccess": {"tenant": tenant}}
            )
        return self.live(flavor)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        flavor = cloud.get("flavors", physical_id)
        if "extra_specs" in changed:
            wanted = _specs(properties)
            for key in set(flavor["extra_specs"]) - set(wanted) - {MARKER_SPEC}:
                flavor = cloud.act("flavors", physical_id, "unset_extra_spec", {"key": key})
            if wanted:
                flavor = cloud.act("flavors", physical_id, "set_extra_specs", {"extra_specs": wanted})
        if "tenants" in changed:
            wanted_tenants = [str(tenant) for tenant in properties.get("tenants") or ()]
            for tenant in set(flavor["_projects"]) - set(wanted_tenants):
                flavor = cloud.act(
                    "flavors", physical_id, "removeTenantAccess", {"removeTenantAccess": {"tenant": tenant}}
                )
            for tenant in [tenant for tenant in wanted_tenants if tenant not in flavor["_projects"]]:
                flavor = cloud.act(
                    "flavors", physical_id, "addTenantAccess", {"addTenantAccess": {"tenant": tenant}}
                )
        return self.live(flavor)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("flavors", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {body["id"]: self.live(body) for body in cloud.list("flavors", ids=list(physical_ids))}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        value = METADATA_VALUE.fitted(marker.tag)
        for body in cloud.list("flavors"):
            if body["extra_specs"].get(MARKER_SPEC) == value:
                return self.live(body, marker)
        return None

    @staticmethod
    def live(body: Body, marker: Marker | None = None) -> LiveResource:
        specs = dict(body["extra_specs"])
        found = Marker.parse(specs.pop(MARKER_SPEC, ""))
        properties = {
            "name": body["name"],
            "flavorid": body["id"],
            "ram": body["ram"],
            "vcpus": body["vcpus"],
            "disk": body["disk"],
            "swap": body["swap"],
            "ephemeral": body["OS-FLV-EXT-DATA:ephemeral"],
            "rxtx_factor": body["rxtx_factor"],
            "is_public": body["os-flavor-access:is_public"],
            "extra_specs": specs,
            "tenants": list(body["_projects"]),
        }
        attributes = {
            "extra_specs": specs,
            "is_public": properties["is_public"],
            "show": {k: v for k, v in body.items() if k[0] != "_"},
        }
        return LiveResource(
            body["id"], Flavor.type_name, LiveStatus.READY, properties, attributes, marker or found
        )


def _specs(properties: Mapping[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in (properties.get("extra_specs") or {}).items()}


TYPES = (Flavor,)
