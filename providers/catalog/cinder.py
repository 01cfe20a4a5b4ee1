"""Block storage types: OS::Cinder::Volume and OS::Cinder::VolumeAttachment.

A volume's size may only grow (Cinder extends, never shrinks); the provider rejects a smaller size
as a permanent error rather than replacing a volume and losing its data.
"""

from __future__ import annotations

from providers.catalog.declaring import replacing, resource_type, updatable

VOLUME = resource_type(
    "OS::Cinder::Volume",
    [
        updatable("size", "integer", description="Size in GiB; may only grow."),
        updatable("name", "string"),
        updatable("description", "string"),
        replacing("availability_zone", "string"),
        replacing("image", "string"),
        updatable("volume_type", "string"),
        updatable("metadata", "map", default={}),
        replacing("snapshot_id", "string"),
        updatable("backup_id", "string"),
        replacing("source_volid", "string"),
        updatable("read_only", "boolean"),
        updatable("multiattach", "boolean"),
        replacing("scheduler_hints", "map"),
    ],
    [
        "attachments",
        "attachments_list",
        "availability_zone",
        "bootable",
        "created_at",
        "display_description",
        "display_name",
        "encrypted",
        "metadata",
        "metadata_values",
        "multiattach",
        "size",
        "snapshot_id",
        "source_volid",
        "status",
        "volume_type",
    ],
    asynchronous=True,
)

VOLUME_ATTACHMENT = resource_type(
    "OS::Cinder::VolumeAttachment",
    [
        updatable("instance_uuid", "string", required=True, description="Server id."),
        updatable("volume_id", "string", required=True),
        updatable("mountpoint", "string"),
    ],
    [],
    asynchronous=True,
)

TYPES = (VOLUME, VOLUME_ATTACHMENT)
