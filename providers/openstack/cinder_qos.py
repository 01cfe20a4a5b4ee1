"""OS::Cinder::QoSSpecs and OS::Cinder::QoSAssociation: Cinder's QoS specs and the volume types
they are associated with.

| Heat property | Cinder call |
|---|---|
| name, specs | `POST /qos-specs` (the specs are keys of the body, beside `name`) |
| specs changed | `PUT /qos-specs/{id}` (keys set), `PUT /qos-specs/{id}/delete_keys` (keys dropped) |
| volume_types (association) | `GET /qos-specs/{id}/associate`, `.../disassociate` (`vol_type_id=`) |

QoS specs carry no tags or metadata, so the marker is the key `reconciler:marker` among the specs,
which no consumer reads; one paged list of `/qos-specs` observes every spec and finds a marker. An
association has no id of its own (Heat records none): its physical id is its QoS specs' id, it is
observed through that spec's associations, and deleting it disassociates every type from the spec,
as Heat deletes the spec's associations before the spec itself. A name already taken is a
permanent failure naming the spec.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent, Retryable
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import marker_metadata_value, physical_name

QOS_SPECS = "OS::Cinder::QoSSpecs"
QOS_ASSOCIATION = "OS::Cinder::QoSAssociation"
MARKER_SPEC = "reconciler:marker"


@dataclass(frozen=True)
class QoSSpecsHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        found = self.find_by_marker(marker)
        if found is not None:
            return found
        name = properties.get("name") or physical_name(marker)
        request = {**_specs(properties), "name": name, MARKER_SPEC: marker_metadata_value(marker)}
        try:
            created = self.apis.block_storage.post("/qos-specs", {"qos_specs": request})["qos_specs"]
        except Retryable as error:
            if error.conflict:
                raise Permanent(f"QoS specs {name!r} cannot be created: {error}") from None
            raise
        return _live(created)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        path = f"/qos-specs/{physical_id}"
        if "specs" in changed:
            wanted = _specs(properties)
            current = self.apis.block_storage.get(path)["qos_specs"].get("specs") or {}
            dropped = sorted(set(current) - set(wanted) - {MARKER_SPEC})
            if dropped:
                self.apis.block_storage.put(f"{path}/delete_keys", {"keys": dropped})
            if wanted:
                self.apis.block_storage.put(path, {"qos_specs": wanted})
        return _live(self.apis.block_storage.get(path)["qos_specs"])

    def delete(self, physical_id: str) -> None:
        self.apis.block_storage.get(f"/qos-specs/{physical_id}/disassociate_all")
        self.apis.block_storage.delete(f"/qos-specs/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        listed = self.apis.block_storage.list_all("/qos-specs", "qos_specs")
        return {body["id"]: _live(body) for body in listed if body["id"] in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        value = marker_metadata_value(marker)
        for body in self.apis.block_storage.list_all("/qos-specs", "qos_specs"):
            if (body.get("specs") or {}).get(MARKER_SPEC) == value:
                return _live(body)
        return None


@dataclass(frozen=True)
class QoSAssociationHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        specs_id = self._specs_id(str(properties["qos_specs"]))
        current = set(self._associated(specs_id))
        for type_id in self._type_ids(properties):
            if type_id not in current:
                self._call(specs_id, "associate", type_id)
        return self._live(specs_id)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = set(self._associated(physical_id))
        wanted = self._type_ids(properties)
        for type_id in sorted(current - set(wanted)):
            self._call(physical_id, "disassociate", type_id)
        for type_id in [type_id for type_id in wanted if type_id not in current]:
            self._call(physical_id, "associate", type_id)
        return self._live(physical_id)

    def delete(self, physical_id: str) -> None:
        self.apis.block_storage.get(f"/qos-specs/{physical_id}/disassociate_all")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        found = {}
        for specs_id in physical_ids:
            try:
                live = self._live(specs_id)
            except NotFound:
                continue
            if live.properties["volume_types"]:
                found[specs_id] = live
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # an association is idempotent: a repeated create associates what is missing

    def _call(self, specs_id: str, action: str, type_id: str) -> None:
        self.apis.block_storage.get(f"/qos-specs/{specs_id}/{action}", {"vol_type_id": type_id})

    def _associated(self, specs_id: str) -> list[str]:
        associations = self.apis.block_storage.get(f"/qos-specs/{specs_id}/associations")
        return [entry["id"] for entry in associations.get("qos_associations") or ()]

    def _specs_id(self, wanted: str) -> str:
        for body in self.apis.block_storage.list_all("/qos-specs", "qos_specs"):
            if wanted in (body["id"], body.get("name")):
                return str(body["id"])
        raise Permanent(f"QoS specs {wanted} could not be found.")

    def _type_ids(self, properties: Mapping[str, Any]) -> list[str]:
        types = self.apis.block_storage.get("/types", {"is_public": "None"})["volume_types"]
        ids = []
        for wanted in properties.get("volume_types") or ():
            match = [body["id"] for body in types if str(wanted) in (body["id"], body.get("name"))]
            if not match:
                raise Permanent(f"Volume type {wanted} could not be found.")
            ids.append(str(match[0]))
        return ids

    def _live(self, specs_id: str) -> LiveResource:
        properties = {"qos_specs": specs_id, "volume_types": sorted(self._associated(specs_id))}
        return LiveResource(specs_id, QOS_ASSOCIATION, LiveStatus.READY, properties, {"show": properties})


def _specs(properties: Mapping[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in (properties.get("specs") or {}).items()}


def _live(body: Mapping[str, Any]) -> LiveResource:
    specs = dict(body.get("specs") or {})
    marker = Marker.parse(specs.pop(MARKER_SPEC, ""))
    properties = {"name": body.get("name"), "specs": specs}
    return LiveResource(body["id"], QOS_SPECS, LiveStatus.READY, properties, {"show": dict(body)}, marker)
