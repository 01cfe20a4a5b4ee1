"""OS::Cinder::VolumeType and OS::Cinder::EncryptedVolumeType on the simulated cloud.

A volume type carries no tags or metadata, so its marker is a scoped extra spec
(`reconciler:marker`): the scheduler's capabilities filter reads only unscoped keys and those
scoped `capabilities:`, so the marker never steers a volume to a backend. An encrypted volume
type is the encryption spec of a type; its physical id is that type's id, which is what a volume's
`volume_type` is given through `get_resource`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.marker_text import METADATA_VALUE
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict
from providers.simulated.heat_types.adapter import pages, require_found, shown
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body

COLLECTION = "volume_types"
MARKER_SPEC = "reconciler:marker"
ENCRYPTION_PROPERTIES = ("provider", "control_location", "cipher", "key_size")


class VolumeType:
    type_name: ClassVar[str] = "OS::Cinder::VolumeType"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = {
            "name": properties.get("name"),
            "description": properties.get("description"),
            "is_public": properties.get("is_public", True),
            "extra_specs": {**_specs(properties), MARKER_SPEC: METADATA_VALUE.fitted(marker.tag)},
        }
        try:
            body = cloud.create(COLLECTION, request)
        except Conflict as error:
            raise Permanent(
                f"volume type {properties.get('name')!r} cannot be created: {error.message}"
            ) from None
        for project in properties.get("projects") or ():
            cloud.act(COLLECTION, body["id"], "addProjectAccess", {"project": project})
        return self.live(cloud.get(COLLECTION, body["id"]))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        fields = {name: properties.get(name) for name in changed & {"name", "description", "is_public"}}
        if fields:
            cloud.update(COLLECTION, physical_id, fields)
        current = cloud.get(COLLECTION, physical_id)
        if "metadata" in changed:
            wanted = _specs(properties)
            for key in set(current["extra_specs"]) - set(wanted) - {MARKER_SPEC}:
                cloud.act(COLLECTION, physical_id, "delete_extra_spec", {"key": key})
            cloud.act(COLLECTION, physical_id, "set_extra_specs", {"extra_specs": wanted})
        if "projects" in changed:
            wanted_projects = [str(project) for project in properties.get("projects") or ()]
            for project in set(current["_projects"]) - set(wanted_projects):
                cloud.act(COLLECTION, physical_id, "removeProjectAccess", {"project": project})
            for project in [p for p in wanted_projects if p not in current["_projects"]]:
                cloud.act(COLLECTION, physical_id, "addProjectAccess", {"project": project})
        return self.live(cloud.get(COLLECTION, physical_id))

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete(COLLECTION, physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        return {
            body["id"]: self.live(body)
            for page in pages(physical_ids)
            for body in cloud.list(COLLECTION, ids=page)
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        fitted = METADATA_VALUE.fitted(marker.tag)
        for body in cloud.list(COLLECTION):
            if body["extra_specs"].get(MARKER_SPEC) == fitted:
                return self.live(body)
        return None

    def live(self, body: Body) -> LiveResource:
        specs = {key: value for key, value in body["extra_specs"].items() if key != MARKER_SPEC}
        properties = {
            "name": body["name"],
            "description": body.get("description"),
            "is_public": body["is_public"],
            "metadata": specs,
            "projects": list(body.get("_projects") or ()),
        }
        return LiveResource(
            body["id"],
            self.type_name,
            LiveStatus.READY,
            properties,
            {"show": shown(body)},
            Marker.parse(body["extra_specs"].get(MARKER_SPEC, "")),
        )


class EncryptedVolumeType:
    type_name: ClassVar[str] = "OS::Cinder::EncryptedVolumeType"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        type_id = self._type_id(cloud, str(properties.get("volume_type")))
        current = cloud.get(COLLECTION, type_id)
        if current["encryption"] is None:
            cloud.act(COLLECTION, type_id, "create_encryption", _encryption(properties))
        elif _encryption(current["encryption"]) != _encryption(properties):
            raise Permanent(f"volume type {current['name']!r} is encrypted already, with another spec")
        return require_found(self.observe(cloud, [type_id]), type_id)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        spec = {name: properties.get(name) for name in changed & set(ENCRYPTION_PROPERTIES)}
        if spec:
            cloud.act(COLLECTION, physical_id, "update_encryption", spec)
        return require_found(self.observe(cloud, [physical_id]), physical_id)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.act(COLLECTION, physical_id, "delete_encryption", {})

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        found = {}
        for page in pages(physical_ids):
            for body in cloud.list(COLLECTION, ids=page):
                if body["encryption"] is not None:
                    found[body["id"]] = self._live(body)
        return found

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None  # the spec carries no marker; create adopts the type's spec when it is the same

    def _type_id(self, cloud: SimulatedCloud, wanted: str) -> str:
        by_id = cloud.list(COLLECTION, ids=[wanted])
        named = by_id or cloud.list(COLLECTION, name=wanted)
        if not named:
            raise Permanent(f"Volume type {wanted} could not be found.")
        return str(named[0]["id"])

    def _live(self, body: Body) -> LiveResource:
        properties = {"volume_type": body["id"], **_encryption(body["encryption"])}
        return LiveResource(
            body["id"], self.type_name, LiveStatus.READY, properties, {"show": dict(body["encryption"])}
        )


def _specs(properties: Mapping[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in (properties.get("metadata") or {}).items()}


def _encryption(values: Mapping[str, Any]) -> dict[str, Any]:
    return {name: values.get(name) for name in ENCRYPTION_PROPERTIES if values.get(name) is not None}


TYPES = (VolumeType, EncryptedVolumeType)
