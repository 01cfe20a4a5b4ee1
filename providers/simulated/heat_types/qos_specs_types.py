"""OS::Cinder::QoSSpecs and OS::Cinder::QoSAssociation on the simulated cloud, as the OpenStack
provider serves them: the specs' marker is the key `reconciler:marker` among the specs; an
association's physical id is its specs' id.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent
from providers.marker_text import METADATA_VALUE, bounded_name
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict, ItemNotFound
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body

MARKER_SPEC = "reconciler:marker"


class QoSSpecs:
    type_name: ClassVar[str] = "OS::Cinder::QoSSpecs"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        found = self.find_by_marker(cloud, marker)
        if found is not None:
            return found
        name = properties.get("name") or bounded_name(
            f"{marker.stack}-{marker.resource}", f"-{marker.record_id}"
        )
        request = {**_specs(properties), "name": name, MARKER_SPEC: METADATA_VALUE.fitted(marker.tag)}
        try:
            return _live(cloud.create("qos_specs", request))
        except Conflict as error:
            raise Permanent(f"QoS specs {name!r} cannot be created: {error}") from None

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        body = cloud.get("qos_specs", physical_id)
        if "specs" in changed:
            wanted = _specs(properties)
            dropped = sorted(set(body["specs"]) - set(wanted) - {MARKER_SPEC})
            if dropped:
                body = cloud.act("qos_specs", physical_id, "delete_keys", {"keys": dropped})
            if wanted:
                body = cloud.act("qos_specs", physical_id, "set_keys", {"specs": wanted})
        return _live(body)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.act("qos_specs", physical_id, "disassociate_all", {})
        cloud.delete("qos_specs", physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {body["id"]: _live(body) for body in cloud.list("qos_specs", ids=list(physical_ids))}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        value = METADATA_VALUE.fitted(marker.tag)
        for body in cloud.list("qos_specs"):
            if body["specs"].get(MARKER_SPEC) == value:
                return _live(body)
        return None


class QoSAssociation:
    type_name: ClassVar[str] = "OS::Cinder::QoSAssociation"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        specs_id = self._specs_id(cloud, str(properties["qos_specs"]))
        return self.update(cloud, specs_id, properties, frozenset({"volume_types"}))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        current = set(_associated(cloud, physical_id))
        wanted = [
            self.resolver.id_of("volume_types", str(vt), "Volume type")
            for vt in properties.get("volume_types") or ()
        ]
        for type_id in sorted(current - set(wanted)):
            cloud.act("qos_specs", physical_id, "disassociate", {"vol_type_id": type_id})
        for type_id in [type_id for type_id in wanted if type_id not in current]:
            cloud.act("qos_specs", physical_id, "associate", {"vol_type_id": type_id})
        return self._live(cloud, physical_id)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.act("qos_specs", physical_id, "disassociate_all", {})

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        found = {}
        for specs_id in physical_ids:
            try:
                live = self._live(cloud, specs_id)
            except ItemNotFound:
                continue
            if live.properties["volume_types"]:
                found[specs_id] = live
        return found

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None  # idempotent: a repeated create associates what is missing

    @staticmethod
    def _specs_id(cloud: SimulatedCloud, wanted: str) -> str:
        for body in cloud.list("qos_specs"):
            if wanted in (body["id"], body["name"]):
                return str(body["id"])
        raise NotFound(f"QoS specs {wanted} could not be found.")

    @staticmethod
    def _live(cloud: SimulatedCloud, specs_id: str) -> LiveResource:
        cloud.get("qos_specs", specs_id)
        properties = {"qos_specs": specs_id, "volume_types": sorted(_associated(cloud, specs_id))}
        return LiveResource(
            specs_id, QoSAssociation.type_name, LiveStatus.READY, properties, {"show": properties}
        )


def _associated(cloud: SimulatedCloud, specs_id: str) -> list[str]:
    return [vtype["id"] for vtype in cloud.list("volume_types", where={"qos_specs_id": specs_id})]


def _specs(properties: Mapping[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in (properties.get("specs") or {}).items()}


def _live(body: Body) -> LiveResource:
    specs = dict(body["specs"])
    marker = Marker.parse(specs.pop(MARKER_SPEC, ""))
    properties = {"name": body["name"], "specs": specs}
    shown = {key: value for key, value in body.items() if key[0] != "_"}
    return LiveResource(body["id"], QoSSpecs.type_name, LiveStatus.READY, properties, {"show": shown}, marker)


TYPES = (QoSSpecs, QoSAssociation)
