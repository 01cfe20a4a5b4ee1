"""OS::Cinder::Volume and OS::Cinder::VolumeAttachment on the simulated cloud.

A volume's marker is a metadata entry (`reconciler_marker`), since Cinder volumes carry no tags. An
attachment's physical id is `<server>:<volume>`; attaching what is attached already adopts it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, Permanent, Retryable
from providers.marker_text import METADATA_VALUE
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict, ItemNotFound
from providers.simulated.heat_types.adapter import TaggedCollection, pages, require_found, shown
from providers.simulated.inventory import Body

MARKER_KEY = "reconciler_marker"


class Volume(TaggedCollection):
    type_name = "OS::Cinder::Volume"
    collection = "volumes"
    passthrough: ClassVar[Mapping[str, str]] = {
        "size": "size",
        "name": "name",
        "description": "description",
        "availability_zone": "availability_zone",
        "volume_type": "volume_type",
        "snapshot_id": "snapshot_id",
        "backup_id": "backup_id",
        "source_volid": "source_volid",
        "multiattach": "multiattach",
    }

    def create_request(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> Body:
        request = self.fields(cloud, properties)
        request["metadata"] = {
            **(properties.get("metadata") or {}),
            MARKER_KEY: METADATA_VALUE.fitted(marker.tag),
        }
        if properties.get("image"):
            request["imageRef"] = self.resolver.id_of("images", properties["image"], "Image")
        if properties.get("scheduler_hints"):
            request["OS-SCH-HNT:scheduler_hints"] = dict(properties["scheduler_hints"])
        return request

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if "size" in changed:
            current = cloud.get("volumes", physical_id)
            if int(properties.get("size") or 0) < current["size"]:
                wanted = properties.get("size")
                raise Permanent(
                    f"volume {physical_id} cannot shrink from {current['size']} GiB to {wanted} GiB"
                )
            cloud.act("volumes", physical_id, "os-extend", {"new_size": properties["size"]})
        if "metadata" in changed:
            marker = cloud.get("volumes", physical_id)["metadata"].get(MARKER_KEY)
            metadata = {**(properties.get("metadata") or {}), **({MARKER_KEY: marker} if marker else {})}
            cloud.act("volumes", physical_id, "set_metadata", {"metadata": metadata})
        request = {name: properties.get(name) for name in changed & {"name", "description"}}
        body = cloud.update("volumes", physical_id, request) if request else cloud.get("volumes", physical_id)
        return self.live(cloud, body)

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        bodies = cloud.list("volumes", tags=[f"{MARKER_KEY}={METADATA_VALUE.fitted(marker.tag)}"])
        return replace(self.live(cloud, bodies[0]), marker=marker) if bodies else None

    def snapshot(self, cloud: SimulatedCloud, physical_id: str, marker: Marker) -> str:
        """A backup of the volume (Heat's `Snapshot` policy), found again by `marker` if one was made."""
        # The marker goes in the description: backup metadata needs a newer microversion than 3.0.
        found = cloud.list("backups", where={"volume_id": physical_id, "description": marker.tag})
        if found:
            backup = found[0]
        else:
            request = {
                "volume_id": physical_id,
                "name": f"{marker.stack}-{marker.resource}-snapshot",
                "description": marker.tag,
                "force": True,
            }
            backup = cloud.create("backups", request)
        return backup_ready(backup)

    def live(self, cloud: SimulatedCloud, body: Body) -> LiveResource:
        live = super().live(cloud, body)
        marker = Marker.parse(body["metadata"].get(MARKER_KEY, ""))
        return LiveResource(
            live.physical_id, live.type, live.status, live.properties, live.attributes, marker
        )

    def properties_of(self, body: Body) -> dict[str, Any]:
        observed = super().properties_of(body)
        observed["metadata"] = {key: value for key, value in body["metadata"].items() if key != MARKER_KEY}
        return observed

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        names = ("availability_zone", "size", "snapshot_id", "volume_type", "source_volid", "status",
                 "created_at", "bootable", "encrypted", "multiattach", "attachments")  # fmt: skip
        metadata = {key: value for key, value in body["metadata"].items() if key != MARKER_KEY}
        return {name: body.get(name) for name in names} | {
            "display_name": body.get("name"),
            "display_description": body.get("description"),
            "metadata": metadata,
            "metadata_values": metadata,
            "attachments_list": body["attachments"],
        }


def backup_ready(backup: Body) -> str:
    """The backup's id once it is available; Retryable while it is being made."""
    if backup["status"] == "available":
        return str(backup["id"])
    if backup["status"] == "error":
        raise Permanent(f"backup {backup['id']} failed: {backup.get('fail_reason') or 'error'}")
    raise Retryable(f"backup {backup['id']} is {backup['status']}")


class VolumeAttachment:
    type_name: ClassVar[str] = "OS::Cinder::VolumeAttachment"

    def __init__(self, resolver: Any) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        server = str(properties.get("instance_uuid"))
        volume = str(properties.get("volume_id"))
        request = {"volumeId": volume, "device": properties.get("mountpoint")}
        with contextlib.suppress(Conflict):  # attached to this server already: adopt it
            cloud.act("servers", server, "attach_volume", request)
        physical_id = f"{server}:{volume}"
        return require_found(self.observe(cloud, [physical_id]), physical_id)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        """Detach and attach again: the physical id changes when the server or volume does."""
        with contextlib.suppress(ItemNotFound):
            self.delete(cloud, physical_id)
        return self.create(cloud, properties, Marker("", "", ""))

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        server, _, volume = physical_id.partition(":")
        cloud.act("servers", server, "detach_volume", {"volumeId": volume})

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        by_volume: dict[str, list[str]] = {}
        for physical_id in physical_ids:
            server, _, volume = physical_id.partition(":")
            by_volume.setdefault(volume, []).append(server)
        found = {}
        for page in pages(by_volume):
            for body in cloud.list("volumes", ids=page):
                for attachment in body["attachments"]:
                    if attachment["server_id"] in by_volume[body["id"]]:
                        live = self._live(body, attachment)
                        found[live.physical_id] = live
        return found

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None  # attachments carry no marker; create adopts an existing one

    def _live(self, volume: Body, attachment: Body) -> LiveResource:
        physical_id = f"{attachment['server_id']}:{volume['id']}"
        properties = {
            "instance_uuid": attachment["server_id"],
            "volume_id": volume["id"],
            "mountpoint": attachment["device"],
        }
        status = LiveStatus.READY if volume["status"] == "in-use" else LiveStatus.IN_PROGRESS
        return LiveResource(physical_id, self.type_name, status, properties, {"show": shown(attachment)})


TYPES = (Volume, VolumeAttachment)
