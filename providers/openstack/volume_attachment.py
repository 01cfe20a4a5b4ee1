"""OS::Cinder::VolumeAttachment: a volume attached to a server through Nova.

The physical id is `<server id>:<volume id>` (Nova names an attachment by its volume). Attaching
is `POST /servers/{id}/os-volume_attachments` and detaching its `DELETE`; both finish
asynchronously, so observe reads the volumes (one paged Cinder list) and reports an attachment
READY when its volume is in-use with that server, IN_PROGRESS while attaching. A create first
checks the volume and adopts an attachment already in place, so repeating it is harmless.
Changing any property detaches and attaches again, as Heat does.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound
from providers.openstack.cloud_apis import CloudApis

TYPE_NAME = "OS::Cinder::VolumeAttachment"


@dataclass(frozen=True)
class AttachmentId:
    server_id: str
    volume_id: str

    def __str__(self) -> str:
        return f"{self.server_id}:{self.volume_id}"

    @classmethod
    def parse(cls, physical_id: str) -> AttachmentId:
        server_id, _, volume_id = physical_id.partition(":")
        if not volume_id:
            raise NotFound(f"{physical_id!r} is not a volume attachment id")
        return cls(server_id, volume_id)


@dataclass(frozen=True)
class VolumeAttachmentHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self.attach(properties)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        self.delete(physical_id)
        return self.attach(properties)

    def attach(self, properties: Mapping[str, Any]) -> LiveResource:
        attachment = AttachmentId(properties["instance_uuid"], properties["volume_id"])
        volume = self.apis.block_storage.get(f"/volumes/{attachment.volume_id}")["volume"]
        if attached_to(volume, attachment.server_id):
            return live_attachment(attachment, volume)
        body: dict[str, Any] = {"volumeId": attachment.volume_id}
        if properties.get("mountpoint"):
            body["device"] = properties["mountpoint"]
        path = f"/servers/{attachment.server_id}/os-volume_attachments"
        self.apis.compute.post(path, {"volumeAttachment": body})
        return LiveResource(str(attachment), TYPE_NAME, LiveStatus.IN_PROGRESS, status_reason="attaching")

    def delete(self, physical_id: str) -> None:
        attachment = AttachmentId.parse(physical_id)
        self.apis.compute.delete(
            f"/servers/{attachment.server_id}/os-volume_attachments/{attachment.volume_id}"
        )

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        attachments = [AttachmentId.parse(physical_id) for physical_id in physical_ids]
        if not attachments:
            return {}
        wanted_volumes = {attachment.volume_id for attachment in attachments}
        volumes = {
            item["id"]: item
            for item in self.apis.block_storage.list_all("/volumes/detail", "volumes")
            if item["id"] in wanted_volumes
        }
        seen = {}
        for attachment in attachments:
            volume = volumes.get(attachment.volume_id)
            if volume is not None and (
                attached_to(volume, attachment.server_id) or volume["status"] == "attaching"
            ):
                seen[str(attachment)] = live_attachment(attachment, volume)
        return seen

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # an attachment holds no marker; `create` adopts one already in place


def attached_to(volume: Mapping[str, Any], server_id: str) -> bool:
    return any(entry.get("server_id") == server_id for entry in volume.get("attachments") or [])


def live_attachment(attachment: AttachmentId, volume: Mapping[str, Any]) -> LiveResource:
    attached = attached_to(volume, attachment.server_id) and volume.get("status") == "in-use"
    device = next(
        (
            e.get("device")
            for e in volume.get("attachments") or []
            if e.get("server_id") == attachment.server_id
        ),
        None,
    )
    return LiveResource(
        physical_id=str(attachment),
        type=TYPE_NAME,
        status=LiveStatus.READY if attached else LiveStatus.IN_PROGRESS,
        status_reason="" if attached else str(volume.get("status")),
        properties={
            "instance_uuid": attachment.server_id,
            "volume_id": attachment.volume_id,
            "mountpoint": device,
        },
        attributes={
            "show": {"server_id": attachment.server_id, "volume_id": attachment.volume_id, "device": device}
        },
    )
