"""OS::Cinder::VolumeType and OS::Cinder::EncryptedVolumeType: Cinder's volume types and the
encryption spec of one.

| Heat property | Cinder call |
|---|---|
| name, description, is_public | `POST /types` (`os-volume-type-access:is_public`), `PUT /types/{id}` |
| metadata | the type's extra specs: `POST /types/{id}/extra_specs`, `DELETE .../extra_specs/{key}` |
| projects | `POST /types/{id}/action` addProjectAccess / removeProjectAccess |
| provider, control_location, cipher, key_size | `POST /types/{id}/encryption`, `PUT .../encryption/{eid}` |

A volume type carries no tags or metadata, so its marker is the scoped extra spec
`reconciler:marker`; the scheduler's capabilities filter reads only unscoped and `capabilities:`
keys, so it never steers a volume. An encrypted volume type's physical id is its volume type's id,
which is what a volume's `volume_type` receives through `get_resource`. A name already taken is a
permanent failure naming the type, not a conflict to wait out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent, Retryable
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import marker_metadata_value

VOLUME_TYPE = "OS::Cinder::VolumeType"
ENCRYPTED_VOLUME_TYPE = "OS::Cinder::EncryptedVolumeType"
MARKER_SPEC = "reconciler:marker"
PUBLIC_KEY = "os-volume-type-access:is_public"
ENCRYPTION_PROPERTIES = ("provider", "control_location", "cipher", "key_size")


@dataclass(frozen=True)
class VolumeTypeHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        found = self.find_by_marker(marker)
        if found is not None:
            return found
        public = bool(properties.get("is_public", True))
        request = {
            "name": properties.get("name"),
            "description": properties.get("description"),
            PUBLIC_KEY: public,
            "extra_specs": {**_specs(properties), MARKER_SPEC: marker_metadata_value(marker)},
        }
        try:
            created = self.apis.block_storage.post("/types", {"volume_type": request})["volume_type"]
        except Retryable as error:
            if error.conflict:
                raise Permanent(
                    f"volume type {properties.get('name')!r} cannot be created: {error}"
                ) from None
            raise
        for project in properties.get("projects") or ():
            self._access(created["id"], "addProjectAccess", str(project))
        return self._live(created, list(properties.get("projects") or ()))

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        fields = {name: properties.get(name) for name in changed & {"name", "description", "is_public"}}
        if fields:
            self.apis.block_storage.put(f"/types/{physical_id}", {"volume_type": fields})
        if "metadata" in changed:
            self._set_specs(physical_id, _specs(properties))
        if "projects" in changed:
            current = set(self._projects(physical_id))
            wanted = [str(project) for project in properties.get("projects") or ()]
            for project in current - set(wanted):
                self._access(physical_id, "removeProjectAccess", project)
            for project in [project for project in wanted if project not in current]:
                self._access(physical_id, "addProjectAccess", project)
        body = self.apis.block_storage.get(f"/types/{physical_id}")["volume_type"]
        return self._live(body, self._projects(physical_id) if not body.get(PUBLIC_KEY, True) else [])

    def delete(self, physical_id: str) -> None:
        self.apis.block_storage.delete(f"/types/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        listed = self.apis.block_storage.get("/types", {"is_public": "None"})["volume_types"]
        return {
            body["id"]: self._live(body, self._projects(body["id"]) if not body.get(PUBLIC_KEY, True) else [])
            for body in listed
            if body["id"] in wanted
        }

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        value = marker_metadata_value(marker)
        for body in self.apis.block_storage.get("/types", {"is_public": "None"})["volume_types"]:
            if (body.get("extra_specs") or {}).get(MARKER_SPEC) == value:
                return self._live(body, [])
        return None

    def _set_specs(self, physical_id: str, wanted: Mapping[str, str]) -> None:
        current = self.apis.block_storage.get(f"/types/{physical_id}/extra_specs")["extra_specs"]
        for key in set(current) - set(wanted) - {MARKER_SPEC}:
            self.apis.block_storage.delete(f"/types/{physical_id}/extra_specs/{key}")
        if wanted:
            self.apis.block_storage.post(f"/types/{physical_id}/extra_specs", {"extra_specs": dict(wanted)})

    def _access(self, physical_id: str, action: str, project: str) -> None:
        self.apis.block_storage.post(f"/types/{physical_id}/action", {action: {"project": project}})

    def _projects(self, physical_id: str) -> list[str]:
        try:
            access = self.apis.block_storage.get(f"/types/{physical_id}/os-volume-type-access")
        except NotFound:
            return []
        return [entry["project_id"] for entry in access.get("volume_type_access") or ()]

    def _live(self, body: Mapping[str, Any], projects: list[str]) -> LiveResource:
        specs = dict(body.get("extra_specs") or {})
        marker = Marker.parse(specs.pop(MARKER_SPEC, ""))
        properties = {
            "name": body.get("name"),
            "description": body.get("description"),
            "is_public": body.get(PUBLIC_KEY, body.get("is_public", True)),
            "metadata": specs,
            "projects": projects,
        }
        return LiveResource(
            body["id"], VOLUME_TYPE, LiveStatus.READY, properties, {"show": dict(body)}, marker
        )


@dataclass(frozen=True)
class EncryptedVolumeTypeHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        type_id = self._type_id(str(properties.get("volume_type")))
        current = self._encryption(type_id)
        if not current:
            self.apis.block_storage.post(
                f"/types/{type_id}/encryption", {"encryption": _encryption(properties)}
            )
        elif _encryption(current) != _encryption(properties):
            raise Permanent(f"volume type {type_id} is encrypted already, with another spec")
        return self._live(type_id, self._encryption(type_id))

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        spec = {name: properties.get(name) for name in changed & set(ENCRYPTION_PROPERTIES)}
        if spec:
            encryption_id = self._encryption(physical_id).get("encryption_id")
            if not encryption_id:
                raise NotFound(f"volume type {physical_id} has no encryption spec")
            self.apis.block_storage.put(
                f"/types/{physical_id}/encryption/{encryption_id}", {"encryption": spec}
            )
        return self._live(physical_id, self._encryption(physical_id))

    def delete(self, physical_id: str) -> None:
        encryption_id = self._encryption(physical_id).get("encryption_id")
        if not encryption_id:
            raise NotFound(f"volume type {physical_id} has no encryption spec")
        self.apis.block_storage.delete(f"/types/{physical_id}/encryption/{encryption_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        found = {}
        for type_id in physical_ids:
            try:
                encryption = self._encryption(type_id)
            except NotFound:
                continue
            if encryption:
                found[type_id] = self._live(type_id, encryption)
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # the spec carries no marker; create adopts the type's spec when it is the same

    def _type_id(self, wanted: str) -> str:
        for body in self.apis.block_storage.get("/types", {"is_public": "None"})["volume_types"]:
            if wanted in (body["id"], body.get("name")):
                return str(body["id"])
        raise Permanent(f"Volume type {wanted} could not be found.")

    def _encryption(self, type_id: str) -> dict[str, Any]:
        return dict(self.apis.block_storage.get(f"/types/{type_id}/encryption") or {})

    def _live(self, type_id: str, encryption: Mapping[str, Any]) -> LiveResource:
        properties = {"volume_type": type_id, **_encryption(encryption)}
        return LiveResource(
            type_id, ENCRYPTED_VOLUME_TYPE, LiveStatus.READY, properties, {"show": dict(encryption)}
        )


def _specs(properties: Mapping[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in (properties.get("metadata") or {}).items()}


def _encryption(values: Mapping[str, Any]) -> dict[str, Any]:
    return {name: values.get(name) for name in ENCRYPTION_PROPERTIES if values.get(name) is not None}
