"""OS::Nova::Flavor: Nova's flavors, their extra specs and private flavors' project access.

| Heat property | Nova call |
|---|---|
| name, flavorid (`id`), ram, vcpus, disk, swap, ephemeral, rxtx_factor, is_public | `POST /flavors` |
| extra_specs | `POST /flavors/{id}/os-extra_specs`, `DELETE .../os-extra_specs/{key}` |
| tenants | `POST /flavors/{id}/action` addTenantAccess / removeTenantAccess |

A flavor carries no tags or metadata, so its marker is the extra spec `reconciler:marker`, which no
scheduler filter reads. Flavors are read at microversion 2.61, where a flavor's extra specs come
with it, so one paged list (`GET /flavors/detail?is_public=None`) observes every flavor and finds a
marker; a private flavor's project access is one more call per private flavor. A name or id already
taken is a permanent failure naming the flavor, not a conflict to wait out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent, Retryable
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.json_api import JsonApi
from providers.openstack.marker_tags import marker_metadata_value, physical_name

FLAVOR = "OS::Nova::Flavor"
MARKER_SPEC = "reconciler:marker"
FLAVOR_MICROVERSION = "2.61"  # flavors show their extra specs
PUBLIC_KEY = "os-flavor-access:is_public"
EPHEMERAL_KEY = "OS-FLV-EXT-DATA:ephemeral"
ALL_FLAVORS = {"is_public": "None"}  # public and private ones


@dataclass(frozen=True)
class FlavorHandler:
    apis: CloudApis

    @property
    def _compute(self) -> JsonApi:
        return replace(self.apis.compute, microversion=FLAVOR_MICROVERSION)

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        if properties.get("tenants") and properties.get("is_public", True):
            raise Permanent("a flavor's tenants need is_public false: a public flavor has no access list")
        found = self.find_by_marker(marker)
        if found is not None:
            return found
        request: dict[str, Any] = {
            "name": properties.get("name") or physical_name(marker),
            "ram": properties["ram"],
            "vcpus": properties["vcpus"],
            "disk": properties.get("disk", 0),
            "swap": properties.get("swap", 0),
            EPHEMERAL_KEY: properties.get("ephemeral", 0),
            "rxtx_factor": properties.get("rxtx_factor", 1.0),
            PUBLIC_KEY: bool(properties.get("is_public", True)),
        }
        if properties.get("flavorid"):
            request["id"] = str(properties["flavorid"])
        try:
            created = self._compute.post("/flavors", {"flavor": request})["flavor"]
        except Retryable as error:
            if error.conflict:
                raise Permanent(f"flavor {request['name']!r} cannot be created: {error}") from None
            raise
        specs = {**_specs(properties), MARKER_SPEC: marker_metadata_value(marker)}
        self._compute.post(f"/flavors/{created['id']}/os-extra_specs", {"extra_specs": specs})
        for tenant in properties.get("tenants") or ():
            self._access(created["id"], "addTenantAccess", str(tenant))
        self.apis.names.forget("flavor")
        return self._live(
            {**created, "extra_specs": specs}, [str(t) for t in properties.get("tenants") or ()]
        )

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if "extra_specs" in changed:
            self._set_specs(physical_id, _specs(properties))
        if "tenants" in changed:
            current = set(self._tenants(physical_id))
            wanted = [str(tenant) for tenant in properties.get("tenants") or ()]
            for tenant in current - set(wanted):
                self._access(physical_id, "removeTenantAccess", tenant)
            for tenant in [tenant for tenant in wanted if tenant not in current]:
                self._access(physical_id, "addTenantAccess", tenant)
        body = self._compute.get(f"/flavors/{physical_id}")["flavor"]
        return self._live(body, self._tenants(physical_id) if not body.get(PUBLIC_KEY, True) else [])

    def delete(self, physical_id: str) -> None:
        self._compute.delete(f"/flavors/{physical_id}")
        self.apis.names.forget("flavor")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        return {
            body["id"]: self._live(body, self._tenants(body["id"]) if not body.get(PUBLIC_KEY, True) else [])
            for body in self._compute.list_all("/flavors/detail", "flavors", ALL_FLAVORS)
            if body["id"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        value = marker_metadata_value(marker)
        for body in self._compute.list_all("/flavors/detail", "flavors", ALL_FLAVORS):
            if (body.get("extra_specs") or {}).get(MARKER_SPEC) == value:
                return self._live(body, self._tenants(body["id"]) if not body.get(PUBLIC_KEY, True) else [])
        return None

    def _set_specs(self, physical_id: str, wanted: Mapping[str, str]) -> None:
        current = self._compute.get(f"/flavors/{physical_id}/os-extra_specs")["extra_specs"]
        for key in set(current) - set(wanted) - {MARKER_SPEC}:
            self._compute.delete(f"/flavors/{physical_id}/os-extra_specs/{key}")
        if wanted:
            self._compute.post(f"/flavors/{physical_id}/os-extra_specs", {"extra_specs": dict(wanted)})

    def _access(self, physical_id: str, action: str, tenant: str) -> None:
        self._compute.post(f"/flavors/{physical_id}/action", {action: {"tenant": tenant}})

    def _tenants(self, physical_id: str) -> list[str]:
        try:
            access = self._compute.get(f"/flavors/{physical_id}/os-flavor-access")
        except NotFound:
            return []
        return [entry["tenant_id"] for entry in access.get("flavor_access") or ()]

    @staticmethod
    def _live(body: Mapping[str, Any], tenants: list[str]) -> LiveResource:
        specs = dict(body.get("extra_specs") or {})
        marker = Marker.parse(specs.pop(MARKER_SPEC, ""))
        properties = {
            "name": body.get("name"),
            "flavorid": body.get("id"),
            "ram": body.get("ram"),
            "vcpus": body.get("vcpus"),
            "disk": body.get("disk"),
            "swap": body.get("swap") or 0,
            "ephemeral": body.get(EPHEMERAL_KEY, 0),
            "rxtx_factor": body.get("rxtx_factor"),
            "is_public": body.get(PUBLIC_KEY, True),
            "extra_specs": specs,
            "tenants": tenants,
        }
        attributes = {"extra_specs": specs, "is_public": properties["is_public"], "show": dict(body)}
        return LiveResource(str(body["id"]), FLAVOR, LiveStatus.READY, properties, attributes, marker)


def _specs(properties: Mapping[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in (properties.get("extra_specs") or {}).items()}
