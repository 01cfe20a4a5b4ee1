"""OS::Cinder::Volume: one `POST /volumes` carrying the marker as a metadata entry.

| Heat property | Cinder body key |
|---|---|
| size, name (default: stack-resource-id), description, availability_zone | same names |
| image (name or id) | volume.imageRef |
| volume_type, snapshot_id, source_volid, backup_id, multiattach | same names |
| metadata (+ the marker and managed entries) | volume.metadata |
| scheduler_hints | OS-SCH-HNT:scheduler_hints (beside `volume`) |

Updates: name and description by `PUT /volumes/{id}`, metadata by `PUT /volumes/{id}/metadata`
(the marker entry kept), a larger size by the `os-extend` action (a smaller one is permanent: Cinder
never shrinks), volume_type by `os-retype`, read_only by `os-update_readonly_flag`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, Permanent, Retryable
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import (
    MANAGED_TAG,
    MARKER_METADATA_KEY,
    carries_marker_metadata,
    marker_from_metadata,
    marker_metadata_value,
    physical_name,
)

TYPE_NAME = "OS::Cinder::Volume"
PLAIN_KEYS = ("size", "description", "availability_zone", "volume_type", "snapshot_id", "source_volid")
MORE_PLAIN_KEYS = ("backup_id", "multiattach")
READY_STATES = {"available", "in-use"}
BACKUP_POLL_SECONDS = 2.0  # how soon to look again at a backup Cinder is still making
PROVIDER_KEYS = (MARKER_METADATA_KEY, MANAGED_TAG)  # the metadata entries this provider writes


def marker_metadata(marker: Marker) -> dict[str, str]:
    return {MARKER_METADATA_KEY: marker_metadata_value(marker), MANAGED_TAG: "true"}


@dataclass(frozen=True)
class VolumeHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        volume: dict[str, Any] = {
            "name": properties.get("name") or physical_name(marker),
            "metadata": {**text_values(properties.get("metadata") or {}), **marker_metadata(marker)},
        }
        for key in (*PLAIN_KEYS, *MORE_PLAIN_KEYS):
            if properties.get(key) is not None:
                volume[key] = properties[key]
        if properties.get("image"):
            volume["imageRef"] = self.apis.names.id_of("image", properties["image"])
        body: dict[str, Any] = {"volume": volume}
        if properties.get("scheduler_hints"):
            body["OS-SCH-HNT:scheduler_hints"] = dict(properties["scheduler_hints"])
        return live_volume(self.apis.block_storage.post("/volumes", body)["volume"])

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        path = f"/volumes/{physical_id}"
        current = self.apis.block_storage.get(path)["volume"]
        renamed = {key: properties.get(key) for key in ("name", "description") if key in changed}
        if renamed:
            self.apis.block_storage.put(path, {"volume": renamed})
        if "metadata" in changed:
            kept = {k: v for k, v in (current.get("metadata") or {}).items() if k in PROVIDER_KEYS}
            metadata = {**text_values(properties.get("metadata") or {}), **kept}
            self.apis.block_storage.put(f"{path}/metadata", {"metadata": metadata})
        if "size" in changed:
            self.resize(physical_id, current, int(properties["size"]))
        if "volume_type" in changed and properties.get("volume_type"):
            retype = {"new_type": properties["volume_type"], "migration_policy": "on-demand"}
            self.apis.block_storage.post(f"{path}/action", {"os-retype": retype})
        if "read_only" in changed:
            readonly = {"readonly": bool(properties.get("read_only"))}
            self.apis.block_storage.post(f"{path}/action", {"os-update_readonly_flag": readonly})
        return live_volume(self.apis.block_storage.get(path)["volume"])

    def resize(self, volume_id: str, current: Mapping[str, Any], size: int) -> None:
        if size < int(current.get("size") or 0):
            raise Permanent(f"volume {volume_id} cannot shrink from {current.get('size')} GiB to {size} GiB")
        if size > int(current.get("size") or 0):
            self.apis.block_storage.post(f"/volumes/{volume_id}/action", {"os-extend": {"new_size": size}})

    def delete(self, physical_id: str) -> None:
        self.apis.block_storage.delete(f"/volumes/{physical_id}")

    def snapshot(self, physical_id: str, marker: Marker) -> str:
        """A backup of the volume (Heat's `Snapshot` policy), found again by `marker` if one was made.

        The marker goes in the description: backup metadata needs microversion 3.43, and
        `volume_id` is one of the list filters every Cinder release accepts.
        """
        query = {"volume_id": physical_id}
        backups = self.apis.block_storage.list_all("/backups/detail", "backups", query)
        backup = next((item for item in backups if item.get("description") == marker.tag), None)
        if backup is None:
            request = {
                "volume_id": physical_id,
                "name": f"{marker.stack}-{marker.resource}-snapshot",
                "description": marker.tag,
                "force": True,
            }
            created = self.apis.block_storage.post("/backups", {"backup": request})["backup"]
            backup = self.apis.block_storage.get(f"/backups/{created['id']}")["backup"]
        return backup_ready(backup)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        """This provider's volumes (the managed metadata entry) first; the whole project's list only
        when some wanted id is not among them."""
        wanted = set(physical_ids)
        seen = self.listed(wanted, {"metadata": json.dumps({MANAGED_TAG: "true"})})
        if wanted - seen.keys():
            seen.update(self.listed(wanted - seen.keys(), {}))
        return seen

    def listed(self, wanted: set[str], query: Mapping[str, str]) -> dict[str, LiveResource]:
        if not wanted:
            return {}
        listed = self.apis.block_storage.list_all("/volumes/detail", "volumes", query)
        return {item["id"]: live_volume(item) for item in listed if item["id"] in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        query = {"metadata": json.dumps({MARKER_METADATA_KEY: marker_metadata_value(marker)})}
        for item in self.apis.block_storage.list_all("/volumes/detail", "volumes", query):
            if carries_marker_metadata(item.get("metadata") or {}, marker):
                return replace(live_volume(item), marker=marker)
        return None


def backup_ready(backup: Mapping[str, Any]) -> str:
    """The backup's id once it is available; Retryable while Cinder is making it."""
    if backup.get("status") == "available":
        return str(backup["id"])
    if backup.get("status") == "error":
        raise Permanent(f"backup {backup['id']} failed: {backup.get('fail_reason') or 'error'}")
    raise Retryable(f"backup {backup['id']} is {backup.get('status')}", after=BACKUP_POLL_SECONDS)


def text_values(metadata: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(key): value if isinstance(value, str) else json.dumps(value) for key, value in metadata.items()
    }


def volume_status(item: Mapping[str, Any]) -> tuple[LiveStatus, str]:
    status = str(item.get("status") or "")
    if status in READY_STATES:
        return LiveStatus.READY, ""
    if status.startswith("error"):
        return LiveStatus.FAILED, status
    return LiveStatus.IN_PROGRESS, status


def live_volume(item: Mapping[str, Any]) -> LiveResource:
    metadata = dict(item.get("metadata") or {})
    marker = marker_from_metadata(metadata)
    for key in PROVIDER_KEYS:
        metadata.pop(key, None)
    status, reason = volume_status(item)
    attachments = item.get("attachments") or []
    return LiveResource(
        physical_id=item["id"],
        type=TYPE_NAME,
        status=status,
        status_reason=reason,
        marker=marker,
        properties={
            "name": item.get("name"),
            "size": item.get("size"),
            "description": item.get("description"),
            "volume_type": item.get("volume_type"),
            "metadata": metadata,
        },
        attributes={
            "attachments": json.dumps(attachments),
            "attachments_list": attachments,
            "availability_zone": item.get("availability_zone"),
            "bootable": item.get("bootable"),
            "created_at": item.get("created_at"),
            "display_description": item.get("description"),
            "display_name": item.get("name"),
            "encrypted": item.get("encrypted"),
            "metadata": metadata,
            "metadata_values": metadata,
            "multiattach": item.get("multiattach"),
            "size": item.get("size"),
            "snapshot_id": item.get("snapshot_id"),
            "source_volid": item.get("source_volid"),
            "status": item.get("status"),
            "volume_type": item.get("volume_type"),
            "show": dict(item),
        },
    )
